import { Controller, Get, HttpCode, Inject, ServiceUnavailableException } from '@nestjs/common';
import type { Infrastructure } from '../infrastructure';
import { INFRASTRUCTURE } from '../tokens';
import { NotRateLimited } from '../rate-limit/rate-limit.guard';

@Controller('health')
@NotRateLimited()
export class HealthController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  @Get('live')
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  /** Ready only while the store and the broker both answer. */
  @Get('ready')
  @HttpCode(200)
  async ready() {
    try {
      await this.infrastructure.ready();
    } catch {
      throw new ServiceUnavailableException('store or broker not reachable');
    }
    return { status: 'ready' };
  }
}
