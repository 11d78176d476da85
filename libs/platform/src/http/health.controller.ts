import { Controller, Get, HttpCode, Inject, ServiceUnavailableException } from '@nestjs/common';
import type { Infrastructure } from '../infrastructure';
import { DRAIN, INFRASTRUCTURE } from '../tokens';
import { NotRateLimited } from '../rate-limit/rate-limit.guard';
import type { Drain } from './drain';

@Controller('health')
@NotRateLimited()
export class HealthController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(DRAIN) private readonly drain: Drain,
  ) {}

  @Get('live')
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  /**
   * Ready only while every dependency answers (as last checked, at most a second ago: a probe
   * never waits on a dead broker), and never once shutting down.
   */
  @Get('ready')
  @HttpCode(200)
  ready() {
    if (this.drain.draining) throw new ServiceUnavailableException('shutting down');
    const waiting = this.infrastructure.waitingFor();
    if (waiting.length > 0)
      throw new ServiceUnavailableException({
        message: `waiting for ${waiting.join(', ')}`,
        data: { waiting_for: waiting },
      });
    return { status: 'ready' };
  }
}
