import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { PROBE_RECORDED, PROBE_STREAM_PREFIX, RECORD_PROBE, SERVICES, probeStream, type ProbeRecordedV1 } from '@paygate/contracts';
import { INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';

/** The collections service: serves its commands and publishes its streams. */
@Module({})
export class CollectionsServiceModule implements OnApplicationBootstrap {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  async onApplicationBootstrap(): Promise<void> {
    const { commands, events, store } = this.infrastructure;
    await commands.serve(SERVICES.collections, {
      [RECORD_PROBE]: async (payload) => {
        const data: ProbeRecordedV1 = { probeId: String(payload.probeId), note: String(payload.note) };
        await store.appendToStream(probeStream(data.probeId), [{ type: PROBE_RECORDED, data: { ...data }, metadata: { schemaVersion: 1 } }], {
          expectedRevision: 'no_stream',
        });
        return { probeId: data.probeId };
      },
    });
    await events.publish([PROBE_STREAM_PREFIX]);
  }
}
