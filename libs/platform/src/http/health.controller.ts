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

  /** Ready only while the store and the broker both answer, and never once shutting down. */
  @Get('ready')
  @HttpCode(200)
  async ready() {
    if (this.drain.draining) throw new ServiceUnavailableException('shutting down');
    try {
      await this.infrastructure.ready();
    } catch {
      throw new ServiceUnavailableException('store or broker not reachable');
    }
    return { status: 'ready' };
  }
}
