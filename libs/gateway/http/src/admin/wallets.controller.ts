import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  HttpCode,
  Inject,
  NotFoundException,
  Post,
  ServiceUnavailableException,
  UseGuards,
} from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { CommandRejectedError, TopUpWallet, type TopUpWalletCommand } from '@paygate/contracts';
import type { MerchantAccounts } from '@paygate/merchants';
import { requestedAmount, toMajorUnits } from '@paygate/money';
import { envelope, INFRASTRUCTURE, LOGGER, type Infrastructure } from '@paygate/platform';
import type { Logger } from '@paygate/logging';
import { AdminGuard, SandboxAliasGuard } from '../guards';
import { AdminOperation, ApiAnswer, ApiConflict, ApiNotFound } from '../openapi/responses';
import { TopUpDto, TopUpRequestDto, TYPED_TEXT_PATTERN } from '../openapi/schemas';
import type { GatewayConfig } from '../gateway-config';
import { GATEWAY_CONFIG, MERCHANTS } from '../tokens';
import { ValidationFailed, type FieldError } from '../validation';

const FIELDS = ['merchant_id', 'currency', 'amount', 'reference', 'operator', 'reason'];
const OPERATOR_MAX = 64;
const REASON_MAX = 200;
const REFERENCE = /^[A-Za-z0-9._:/-]{1,64}$/;

const TYPED_TEXT = new RegExp(TYPED_TEXT_PATTERN);

/** Text a person typed (TYPED_TEXT_PATTERN), at most `max` characters. */
const isShortText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length <= max && TYPED_TEXT.test(value);

/**
 * Reads the HTTP request into the payments.topUp command: snake_case fields, the amount in major
 * units converted with the money kernel (no rounding), a reference generated when absent, and who
 * credits the wallet and why (`operator`, `reason`): required when `operatorCredit` is (a live
 * deployment moves real money, so each top-up is an operator's credit on record). What a
 * top-up may be (amount, currency, reference) is the wallet ledger's rule
 * (libs/payments/domain wallet-ledger.ts); this only decodes the request's representation.
 */
export function parseTopUp(body: unknown, { operatorCredit = false } = {}): TopUpWalletCommand {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationFailed([{ field: 'body', message: 'the request body must be a JSON object' }]);
  const errors: FieldError[] = [];
  const fields = body as Record<string, unknown>;
  for (const field of Object.keys(fields))
    if (!FIELDS.includes(field)) errors.push({ field, message: `${field} is not a field of this request` });
  const { merchant_id: merchantId, currency, amount, reference, operator, reason } = fields;
  if (typeof merchantId !== 'string' || merchantId.trim() === '' || merchantId.length > 64)
    errors.push({ field: 'merchant_id', message: 'merchant_id must be a merchant id' });
  const requested = requestedAmount(currency, amount);
  if (!requested.ok) errors.push({ field: requested.field, message: requested.message });
  if (reference !== undefined && (typeof reference !== 'string' || !REFERENCE.test(reference))) {
    errors.push({ field: 'reference', message: 'reference must be 1 to 64 characters of A-Z a-z 0-9 . _ : / -' });
  }
  // One without the other is no record of a credit: both, or (in a test deployment) neither.
  const credited = operatorCredit || operator !== undefined || reason !== undefined;
  const live = operatorCredit ? ' in a live deployment' : '';
  if (credited && !isShortText(operator, OPERATOR_MAX))
    errors.push({
      field: 'operator',
      message: `operator${live} must name who credits the wallet: 1 to ${OPERATOR_MAX} characters`,
    });
  if (credited && !isShortText(reason, REASON_MAX))
    errors.push({
      field: 'reason',
      message: `reason${live} must say why the wallet is credited: 1 to ${REASON_MAX} characters`,
    });
  if (errors.length > 0) throw new ValidationFailed(errors);
  return {
    merchantId: merchantId as string,
    currency: currency as string,
    amount: (requested as { minor: number }).minor,
    reference: (reference as string | undefined) ?? randomUUID(),
    ...(credited && { operator: (operator as string).trim(), reason: (reason as string).trim() }),
  };
}

/**
 * Money for a merchant's wallet (the ledger's top_up account), so a collect-for-payment with
 * charge_customer=false has a fee to hold. An admin API route; `/sandbox/v1/wallets/top-up`, where it
 * lived while the sandbox served it, stays an alias in test deployments. Sent to
 * service-payments over the command bus (`payments.topUp`).
 */
@ApiTags('admin')
@Controller(['admin/v1', 'sandbox/v1'])
@UseGuards(SandboxAliasGuard, AdminGuard)
export class WalletsAdminController {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(MERCHANTS) private readonly merchants: MerchantAccounts,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  @Post('wallets/top-up')
  @HttpCode(200)
  @AdminOperation({
    id: 'topUpWallet',
    summary: "Top up a merchant's wallet",
    description:
      'amount in major units. reference (optional, generated when absent) makes a retried top-up the same top-up. operator and reason (who credits the wallet and why) are recorded with the credit; a live deployment requires both.',
    body: true,
    invalid: 'data.errors names each bad field',
  })
  @ApiBody({ type: TopUpRequestDto })
  @ApiAnswer(200, 'Topped up: the wallet after it', TopUpDto)
  @ApiNotFound('No merchant has this merchant_id')
  @ApiConflict('reference used before for another top-up')
  async topUp(@Body() body: unknown) {
    const command = parseTopUp(body, { operatorCredit: this.config.mode === 'live' });
    if (!(await this.merchants.get(command.merchantId))) throw new NotFoundException('no such merchant');
    let result;
    try {
      result = await this.infrastructure.commands.send(new TopUpWallet(command));
    } catch (error) {
      if (error instanceof CommandRejectedError && error.code === 'duplicate_reference')
        throw new ConflictException(`reference ${command.reference} was used for another top-up`);
      if (error instanceof CommandRejectedError && error.code === 'invalid_request')
        throw new BadRequestException({ message: error.message, data: { errors: error.details?.errors ?? [] } });
      this.log.warn('wallet top-up not made', { merchant_id: command.merchantId, error });
      throw new ServiceUnavailableException('service-payments could not top up the wallet; try again');
    }
    const { balance } = result;
    return envelope(200, 'Wallet topped up', {
      merchant_id: command.merchantId,
      currency: balance.currency,
      reference: command.reference,
      balance: toMajorUnits(balance.balance, balance.currency),
      available: toMajorUnits(balance.available, balance.currency),
    });
  }
}
