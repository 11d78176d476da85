import { randomUUID } from 'node:crypto';
import { BadRequestException, Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { RECORD_PROBE, SERVICES, type RecordProbeCommand } from '@paygate/contracts';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';

@Controller('v1/probes')
export class ProbesController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  /** Accepted once the collections service has recorded it; the dispatcher receives it later. */
  @Post()
  @HttpCode(202)
  async record(@Body() body: unknown) {
    const note = (body as { note?: unknown } | null)?.note;
    if (typeof note !== 'string' || note.length === 0 || note.length > 200) {
      throw new BadRequestException('note must be a string of 1 to 200 characters');
    }
    const command: RecordProbeCommand = { probeId: randomUUID(), note };
    const reply = await this.infrastructure.commands.send<{ probeId: string }>(SERVICES.collections, RECORD_PROBE, { ...command });
    return envelope(202, 'probe recorded', { probe_id: reply.probeId });
  }
}
