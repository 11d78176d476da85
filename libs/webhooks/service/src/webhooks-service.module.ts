import { Controller, Get, Inject, Module, NotFoundException, Param, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PROBE_RECORDED, PROBE_STREAM_PREFIX, type ProbeRecordedV1 } from '@paygate/contracts';
import type { RunningConsumer } from '@paygate/messaging';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { ProbeReceipts } from './probe-receipts';

const receipts = Symbol('ProbeReceipts');

@Controller('internal/v1/probes')
class ProbeReceiptsController {
  constructor(@Inject(receipts) private readonly probeReceipts: ProbeReceipts) {}

  @Get(':probeId')
  async find(@Param('probeId') probeId: string) {
    const receipt = await this.probeReceipts.find(probeId);
    if (!receipt) throw new NotFoundException('probe not received');
    return envelope(200, 'probe received', receipt);
  }
}

/** The webhook dispatcher: consumes the services' events through the broker. */
@Module({
  controllers: [ProbeReceiptsController],
  providers: [{ provide: receipts, inject: [INFRASTRUCTURE], useFactory: (infra: Infrastructure) => ProbeReceipts.create(infra.sql) }],
})
export class WebhooksServiceModule implements OnApplicationBootstrap, OnModuleDestroy {
  private consumer?: RunningConsumer;

  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(receipts) private readonly probeReceipts: ProbeReceipts,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await this.infrastructure.events.consume({ group: 'webhook-dispatcher', streamPrefixes: [PROBE_STREAM_PREFIX] }, async (event) => {
      if (event.type !== PROBE_RECORDED) return;
      const data = event.data as unknown as ProbeRecordedV1;
      await this.probeReceipts.record(event.id, data.probeId, data.note);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer?.stop();
  }
}
