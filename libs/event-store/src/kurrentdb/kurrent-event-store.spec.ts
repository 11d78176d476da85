import { describeWithService, eventStoreConformance } from '@paygate/testing';
import { KurrentEventStore } from './kurrent-event-store';

// Runs everywhere (jest also needs one test in this file when KURRENTDB_URL is unset).
describe('KurrentEventStore without a server', () => {
  it('connects lazily and fails ping instead of hanging', async () => {
    const store = await KurrentEventStore.connect('kurrentdb://127.0.0.1:1?tls=false');
    try {
      const started = Date.now();
      await expect(store.ping()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await store.close();
    }
  });
});

describeWithService('kurrentdb', 'KurrentEventStore', (url) => {
  eventStoreConformance(async () => {
    const store = await KurrentEventStore.connect(url);
    return { store, dispose: () => store.close() };
  });
});
