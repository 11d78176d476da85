import { BadRequestException, Controller, Get, NotFoundException, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { envelope } from '@paygate/platform';
import { SandboxAdminGuard } from './admin-guard';
import { CardRefunds } from './card/card-refunds';
import { DisbursementSimulator } from './momo/disbursement-simulator';
import { DisbursementStore } from './momo/disbursement-store';

const KINDS = ['payout', 'refund'] as const;
type Kind = (typeof KINDS)[number];

/** What the sandbox received for one of our references, in one vocabulary for every provider. */
interface MoneyOutRecord {
  kind: Kind;
  provider: 'momo' | 'card';
  reference: string;
  requests_received: number;
  status: string;
}

const CARD_STATUS = { pending: 'PENDING', succeeded: 'SUCCESSFUL', failed: 'FAILED' } as const;

/**
 * How often each payout and refund reference reached the sandbox's providers, and where it stands: tests and operators
 * check with it that a repeated reference sent nothing new.
 */
@ApiTags('sandbox')
@ApiBearerAuth()
@Controller('sandbox/v1')
@UseGuards(SandboxAdminGuard)
export class MoneyOutAdminController {
  constructor(
    private readonly store: DisbursementStore,
    private readonly disbursement: DisbursementSimulator,
    private readonly cardRefunds: CardRefunds,
  ) {}

  @Get('money-out/:reference')
  @ApiOperation({
    summary: 'A payout or refund by our reference (the externalId, or the card refund reference)',
    description:
      'requests_received: every request that named the reference, the first and each repeat (a reference sent once ' +
      'counts 1). status: PENDING, SUCCESSFUL, FAILED or REVERSED. `kind` (payout or refund) picks one when the ' +
      'reference names both.',
  })
  async get(@Param('reference') reference: string, @Query('kind') kind?: string) {
    if (kind !== undefined && !KINDS.includes(kind as Kind))
      throw new BadRequestException({
        message: 'kind must be payout or refund',
        data: { errors: [{ field: 'kind', message: 'kind must be payout or refund' }] },
      });
    const found = (await this.records(reference)).filter((record) => kind === undefined || record.kind === kind);
    if (found.length === 0) throw new NotFoundException('the sandbox received no payout or refund with this reference');
    if (found.length > 1)
      throw new BadRequestException({
        message: 'the reference names more than one payout or refund: ask with kind=payout or kind=refund',
        data: { errors: [{ field: 'kind', message: 'kind=payout or kind=refund is needed for this reference' }] },
      });
    return envelope(200, 'Money out received', found[0]);
  }

  /**
   * One record per kind and provider. MoMo keys its requests by X-Reference-Id, so the requests of every id our
   * reference was sent under add up: a reference sent under two ids counts twice. The status is the latest one's.
   */
  private async records(reference: string): Promise<MoneyOutRecord[]> {
    const records: MoneyOutRecord[] = [];
    const transfers = await this.store.byExternalId('transfer', reference);
    if (transfers.length > 0) {
      const latest = await this.disbursement.transferStatus(transfers.at(-1)!.referenceId);
      records.push(record('payout', 'momo', reference, transfers, latest!.status));
    }
    const refunds = await this.store.byExternalId('refund', reference);
    if (refunds.length > 0) {
      const latest = await this.disbursement.refundStatus(refunds.at(-1)!.referenceId);
      records.push(record('refund', 'momo', reference, refunds, latest!.status));
    }
    const cardRefund = await this.cardRefunds.find(reference);
    if (cardRefund) records.push(record('refund', 'card', reference, [cardRefund], CARD_STATUS[cardRefund.status]));
    return records;
  }
}

function record(
  kind: Kind,
  provider: MoneyOutRecord['provider'],
  reference: string,
  requests: Array<{ requestsReceived: number }>,
  status: string,
): MoneyOutRecord {
  return {
    kind,
    provider,
    reference,
    requests_received: requests.reduce((sum, request) => sum + request.requestsReceived, 0),
    status,
  };
}
