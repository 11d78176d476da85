import type { StartedTestContainer } from 'testcontainers';

/** Stops what global-setup.ts started (jest runs both in its parent process). */
export default async function stopContainers(): Promise<void> {
  const containers = (globalThis as { paygateContainers?: StartedTestContainer[] }).paygateContainers ?? [];
  await Promise.allSettled(containers.map((container) => container.stop()));
}
