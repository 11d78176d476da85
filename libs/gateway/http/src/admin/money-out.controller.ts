import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { ListMoneyOutAttention } from '@paygate/contracts';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { AdminGuard, ApiRequestGuard } from '../guards';
import { MoneyOutAttentionListDto } from '../openapi/payout-schemas';
import { AdminOperation, ApiAnswer } from '../openapi/responses';
import { PAGE_LIMIT } from '../page-cursor';
import { ValidationFailed, type FieldError } from '../validation';

/** At most this many flagged items are listed, oldest first: the oldest are the ones to look at. */
const LIMIT = PAGE_LIMIT.max;

@ApiTags('admin')
@Controller('admin/v1/money-out')
@UseGuards(ApiRequestGuard, AdminGuard)
export class MoneyOutAdminController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  @Get()
  @ApiQuery({ name: 'state', required: true, enum: ['needs_attention'] })
  @AdminOperation({
    id: 'listMoneyOutNeedingAttention',
    summary: 'Refunds and payouts their provider has not confirmed for too long',
    description:
      'Those still PENDING after MONEY_OUT_ATTENTION_AFTER_MS without a final word from their provider, oldest first (at most 100). Paygate keeps asking the provider with the same reference; none is failed without its word.',
    body: false,
    invalid: 'state missing or not needs_attention, or an unknown parameter',
  })
  @ApiAnswer(200, 'The flagged refunds and payouts', MoneyOutAttentionListDto)
  async list(@Query() query: Record<string, unknown>) {
    const errors: FieldError[] = [];
    for (const field of Object.keys(query))
      if (field !== 'state') errors.push({ field, message: 'unknown query parameter; this list takes state' });
    if (query.state !== 'needs_attention') errors.push({ field: 'state', message: 'state must be needs_attention' });
    if (errors.length > 0) throw new ValidationFailed(errors);
    const { items } = await this.infrastructure.commands.send(new ListMoneyOutAttention({ limit: LIMIT }));
    return envelope(200, 'Money out needing attention', { money_out: items });
  }
}
