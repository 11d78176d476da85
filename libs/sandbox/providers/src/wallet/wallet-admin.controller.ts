import { BadRequestException, Body, ConflictException, Controller, HttpCode, Inject, NotFoundException, Post, ServiceUnavailableException, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { CommandRejectedError, PAYMENTS_SERVICE } from '@paygate/contracts';
import { MerchantDirectory } from '@paygate/merchants';
import { isSupportedCurrency, toMajorUnits, toMinorUnits } from '@paygate/money';
import { envelope, INFRASTRUCTURE, LOGGER, type Infrastructure, type Logger } from '@paygate/platform';
import { SandboxAdminGuard } from '../admin-guard';

interface FieldError {
  field: string;
  message: string;
}

interface TopUpRequest {
  merchantId: string;
  currency: string;
  /** Integer minor units. */
  amount: number;
  reference: string;
}

const FIELDS = ['merchant_id', 'currency', 'amount', 'reference'];
const REFERENCE = /^[A-Za-z0-9._:/-]{1,64}$/;

/** A 400 in Paygate's envelope with `data.errors` naming each bad field. */
function validationFailed(errors: FieldError[]): BadRequestException {
  return new BadRequestException({ message: errors.map((error) => error.message).join('; '), data: { errors } });
}

/** Amount in major units as a JSON number, converted with the money kernel (no rounding). */
export function parseTopUp(body: unknown): TopUpRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationFailed([{ field: 'body', message: 'the request body must be a JSON object' }]);
  const errors: FieldError[] = [];
  const fields = body as Record<string, unknown>;
  for (const field of Object.keys(fields)) if (!FIELDS.includes(field)) errors.push({ field, message: `${field} is not a field of this request` });
  const { merchant_id: merchantId, currency, amount, reference } = fields;
  if (typeof merchantId !== 'string' || merchantId.trim() === '' || merchantId.length > 64) errors.push({ field: 'merchant_id', message: 'merchant_id must be a merchant id' });
  let minor: number | undefined;
  if (!isSupportedCurrency(currency)) errors.push({ field: 'currency', message: 'currency must be a supported currency code (e.g. UGX)' });
  else if (typeof amount !== 'number') errors.push({ field: 'amount', message: 'amount must be a number in major units' });
  else {
    const converted = toMinorUnits(amount, currency);
    if (converted.ok) minor = converted.minor;
    else errors.push({ field: 'amount', message: `amount ${converted.reason}` });
  }
  if (reference !== undefined && (typeof reference !== 'string' || !REFERENCE.test(reference))) {
    errors.push({ field: 'reference', message: 'reference must be 1 to 64 characters of A-Z a-z 0-9 . _ : / -' });
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { merchantId: merchantId as string, currency: currency as string, amount: minor as number, reference: (reference as string | undefined) ?? randomUUID() };
}

/**
 * Sandbox money for a merchant's wallet, so a collect-for-payment with charge_customer=false has
 * a fee to hold. Sent to service-payments over the command bus (`payments.topUp`); the sandbox
 * knows the payments context only by its contract.
 */
@ApiTags('sandbox')
@ApiBearerAuth()
@Controller('sandbox/v1')
@UseGuards(SandboxAdminGuard)
export class WalletAdminController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(MerchantDirectory) private readonly merchants: MerchantDirectory,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  @Post('wallets/top-up')
  @HttpCode(200)
  @ApiOperation({
    summary: "Top up a merchant's wallet",
    description: 'amount in major units. reference (optional, generated when absent) makes a retried top-up the same top-up. An unknown merchant answers 404.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['merchant_id', 'currency', 'amount'],
      properties: { merchant_id: { type: 'string' }, currency: { type: 'string', example: 'UGX' }, amount: { type: 'number', example: 50000 }, reference: { type: 'string' } },
    },
  })
  async topUp(@Body() body: unknown) {
    const request = parseTopUp(body);
    if (!(await this.merchants.exists(request.merchantId))) throw new NotFoundException('no such merchant');
    let result;
    try {
      result = await this.infrastructure.commands.send(PAYMENTS_SERVICE, 'payments.topUp', request);
    } catch (error) {
      if (error instanceof CommandRejectedError && error.code === 'duplicate_reference') throw new ConflictException(`reference ${request.reference} was used for another top-up`);
      if (error instanceof CommandRejectedError && error.code === 'invalid_request') throw new BadRequestException({ message: error.message, data: { errors: error.details?.errors ?? [] } });
      this.log.warn('wallet top-up not made', { merchant_id: request.merchantId, error });
      throw new ServiceUnavailableException('service-payments could not top up the wallet; try again');
    }
    const { balance } = result;
    return envelope(200, 'Wallet topped up', {
      merchant_id: request.merchantId,
      currency: balance.currency,
      reference: request.reference,
      balance: toMajorUnits(balance.balance, balance.currency),
      available: toMajorUnits(balance.available, balance.currency),
    });
  }
}
