import type { FastifyReply } from 'fastify';
import type { Background } from './background';

/**
 * How a provider that times out looks to its caller: the request was received (and recorded), but no answer comes.
 * The connection is held for `holdMs`, or until the caller gives up, the server starts draining (`draining`) or the
 * app closes, then dropped without a response, so even a caller more patient than the hold gets none.
 */
export async function leaveUnanswered(
  reply: FastifyReply,
  background: Background,
  holdMs: number,
  draining: AbortSignal,
): Promise<void> {
  reply.hijack();
  const callerGone = new Promise<void>((resolve) => reply.raw.once('close', resolve));
  const drained = new Promise<void>((resolve) =>
    draining.aborted ? resolve() : draining.addEventListener('abort', () => resolve(), { once: true }),
  );
  await Promise.race([background.sleep(holdMs), callerGone, drained]);
  reply.raw.destroy();
}
