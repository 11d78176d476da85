import type { FastifyReply } from 'fastify';
import type { Background } from './background';

/**
 * How a provider that times out looks to its caller: the request was received (and recorded), but no answer comes.
 * The connection is held for `holdMs`, or until the caller gives up or the app closes, then dropped without a
 * response, so even a caller more patient than the hold gets none.
 */
export async function leaveUnanswered(reply: FastifyReply, background: Background, holdMs: number): Promise<void> {
  reply.hijack();
  const callerGone = new Promise<void>((resolve) => reply.raw.once('close', resolve));
  await Promise.race([background.sleep(holdMs), callerGone]);
  reply.raw.destroy();
}
