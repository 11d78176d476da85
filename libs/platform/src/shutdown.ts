import { once } from 'node:events';
import type { INestApplication } from '@nestjs/common';
import type { Config } from '@paygate/config';
import type { Logger } from '@paygate/logging';
import type { Drain } from './http/drain';
import type { Infrastructure } from './infrastructure';
import { DRAIN } from './tokens';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * What SIGTERM does, in order: readiness turns unready; after SHUTDOWN_DELAY_MS the command
 * listener stops (commands in hand answer, new ones go to another instance), the HTTP listener
 * stops accepting and idle keep-alive connections close, as do connections that never sent a byte;
 * requests in flight finish and get their responses (their connections closing after); then the
 * features stop (consumers finish the message in hand and commit it, timers and workers stop);
 * then the broker and the stores close. Whatever has not finished SHUTDOWN_TIMEOUT_MS after the
 * start is abandoned, with an error line naming it. True when everything finished.
 */
export async function shutDown(
  app: INestApplication,
  infrastructure: Infrastructure,
  limits: Config['shutdown'],
  log: Logger,
): Promise<boolean> {
  const drain = app.get<Drain>(DRAIN);
  let waitingFor = () => 'the shutdown delay';
  let clean = true;
  const steps = async () => {
    drain.begin();
    await sleep(limits.delayMs);
    // Commands stop before the modules that handle them close: those in hand answer, later ones go to another instance.
    waitingFor = () => 'commands in hand';
    await infrastructure.commands.stopServing();
    waitingFor = () => `the HTTP server: ${drain.requestsInFlight} requests in flight`;
    // Nest closes the HTTP server (which waits for requests in flight) before its shutdown hooks, where features stop
    // their consumers.
    const appClosed = app.close();
    const serverClosed = once(app.getHttpServer(), 'close');
    drain.closeSilentConnections();
    try {
      await Promise.race([serverClosed, appClosed]);
      waitingFor = () => {
        const groups = infrastructure.events.openGroups();
        return `consumers, timers and workers finishing their current work${groups.length > 0 ? ` (consumer groups still open: ${groups.join(', ')})` : ''}`;
      };
      await appClosed;
    } catch (error) {
      clean = false;
      log.error('shutdown: the application did not close cleanly', { error });
    }
    await infrastructure.close((what) => (waitingFor = () => what));
  };

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), limits.timeoutMs);
  });
  const outcome = await Promise.race([
    steps().then(
      () => 'finished' as const,
      (error: unknown) => {
        log.error('shutdown failed', { waiting_for: waitingFor(), error });
        return 'failed' as const;
      },
    ),
    deadline,
  ]);
  clearTimeout(timer);
  if (outcome === 'timed out') {
    log.error('shutdown abandoned', { abandoned: waitingFor(), shutdown_timeout_ms: limits.timeoutMs });
    return false;
  }
  return clean && outcome === 'finished';
}
