import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Put,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { requestedAmount } from '@paygate/money';
import { envelope } from '@paygate/platform';
import { SandboxAdminGuard } from '../admin-guard';
import { BillerSandbox, paymentBody, prnBody } from './biller-sandbox';
import { PRN_STATUSES, type Faults, type NewPrn, type PrnStatus } from './biller-store';

interface FieldError {
  field: string;
  message: string;
}

/** A 400 in Paygate's envelope with `data.errors` naming each bad field, as the admin API answers. */
function validationFailed(errors: FieldError[]): BadRequestException {
  return new BadRequestException({ message: errors.map((error) => error.message).join('; '), data: { errors } });
}

function objectBody(body: unknown, allowed: readonly string[], errors: FieldError[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw validationFailed([{ field: 'body', message: 'the request body must be a JSON object' }]);
  for (const field of Object.keys(body))
    if (!allowed.includes(field)) errors.push({ field, message: `${field} is not a field of this request` });
  return body as Record<string, unknown>;
}

const PRN_FIELDS = ['prn', 'amount', 'currency', 'status', 'service_name', 'payer_name', 'expires_at'] as const;
const DEFAULT_LIFETIME_MS = 30 * 24 * 3600_000;

function parseNewPrn(body: unknown): NewPrn {
  const errors: FieldError[] = [];
  const fields = objectBody(body, PRN_FIELDS, errors);
  const {
    prn,
    amount,
    currency,
    status = 'AVAILABLE',
    service_name = 'URA - Domestic Tax',
    payer_name = 'Sandbox Taxpayer',
    expires_at,
  } = fields;
  if (prn !== undefined && (typeof prn !== 'string' || !/^\d{13}$/.test(prn)))
    errors.push({ field: 'prn', message: 'prn must be 13 digits' });
  const requested = requestedAmount(currency, amount);
  if (!requested.ok) errors.push({ field: requested.field, message: requested.message });
  if (!PRN_STATUSES.includes(status as PrnStatus))
    errors.push({ field: 'status', message: `status must be one of ${PRN_STATUSES.join(', ')}` });
  for (const [field, value] of [
    ['service_name', service_name],
    ['payer_name', payer_name],
  ] as const) {
    if (typeof value !== 'string' || value.trim() === '' || value.length > 100)
      errors.push({ field, message: `${field} must be a string of 1 to 100 characters` });
  }
  // Any time, past included: an AVAILABLE PRN past its expiry is how a test gets one that expired.
  const expiresAt =
    expires_at === undefined
      ? new Date(Date.now() + DEFAULT_LIFETIME_MS)
      : typeof expires_at === 'string'
        ? new Date(expires_at)
        : undefined;
  if (!expiresAt || Number.isNaN(expiresAt.getTime()))
    errors.push({ field: 'expires_at', message: 'expires_at must be an ISO 8601 time' });
  if (errors.length > 0) throw validationFailed(errors);
  return {
    ...(prn !== undefined && { prn: prn as string }),
    amount: (requested as { minor: number }).minor,
    currency: currency as string,
    status: status as PrnStatus,
    serviceName: service_name as string,
    payerName: payer_name as string,
    expiresAt: expiresAt!,
  };
}

const MAX_DELAY_MS = 120_000;

function parseFaults(body: unknown): Faults {
  const errors: FieldError[] = [];
  const {
    fail_next = 0,
    delay_ms = 0,
    fail_lookups_next = 0,
  } = objectBody(body, ['fail_next', 'delay_ms', 'fail_lookups_next'], errors);
  for (const [field, value] of Object.entries({ fail_next, fail_lookups_next })) {
    if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > 1000)
      errors.push({ field, message: `${field} must be a whole number from 0 to 1000` });
  }
  if (!Number.isSafeInteger(delay_ms) || (delay_ms as number) < 0 || (delay_ms as number) > MAX_DELAY_MS)
    errors.push({ field: 'delay_ms', message: `delay_ms must be a whole number from 0 to ${MAX_DELAY_MS}` });
  if (errors.length > 0) throw validationFailed(errors);
  return { failNext: fail_next as number, delayMs: delay_ms as number, failLookupsNext: fail_lookups_next as number };
}

const faultsBody = (faults: Faults) => ({
  fail_next: faults.failNext,
  delay_ms: faults.delayMs,
  fail_lookups_next: faults.failLookupsNext,
});

/** Test data and fault injection for the sandbox biller; Paygate's admin token, Paygate's envelope. */
@ApiTags('sandbox')
@ApiBearerAuth()
@Controller('sandbox/v1')
@UseGuards(SandboxAdminGuard)
export class BillerAdminController {
  constructor(private readonly biller: BillerSandbox) {}

  @Post('prns')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a PRN at the sandbox biller',
    description:
      'Amounts in major units. prn (13 digits) is generated when absent; an existing prn answers 409. Defaults: status AVAILABLE, expiry in 30 days.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['amount', 'currency'],
      properties: {
        prn: { type: 'string', pattern: '^[0-9]{13}$' },
        amount: { type: 'number', example: 25000 },
        currency: { type: 'string', example: 'UGX' },
        status: { type: 'string', enum: [...PRN_STATUSES] },
        service_name: { type: 'string' },
        payer_name: { type: 'string' },
        expires_at: { type: 'string', format: 'date-time' },
      },
    },
  })
  async create(@Body() body: unknown) {
    const request = parseNewPrn(body);
    const created = await this.biller.createPrn(request);
    if (!created) throw new ConflictException(`PRN ${request.prn} already exists`);
    return envelope(201, 'PRN created', prnBody(created));
  }

  @Get('prns/:prn')
  @ApiOperation({
    summary:
      'A PRN with payment_calls (every payment call received for it, whatever it was answered) and the payments made',
  })
  async get(@Param('prn') prn: string) {
    const found = await this.biller.prnWithCalls(prn);
    if (!found) throw new NotFoundException('no such PRN');
    return envelope(200, 'PRN found', {
      ...prnBody(found.prn),
      payment_calls: found.prn.paymentCalls,
      payments: found.payments.map(paymentBody),
    });
  }

  @Get('biller/faults')
  @ApiOperation({ summary: 'The faults injected into the biller’s payment calls' })
  async faults() {
    return envelope(200, 'Biller faults', faultsBody(await this.biller.faults()));
  }

  /**
   * Replaces the injected faults (an omitted field is 0, so `{}` clears them). They are kept in
   * the sandbox's store: they hold across a restart and for every sandbox instance.
   */
  @Put('biller/faults')
  @ApiOperation({
    summary: 'Inject faults into the biller’s payment calls',
    description:
      'fail_next: the next N payment calls answer 503 SERVICE_UNAVAILABLE having done nothing (counted in payment_calls). ' +
      'delay_ms: every payment call that makes or replays a payment answers only after this long; a new payment stays PENDING, ' +
      'its PRN SUBMITTED, until then, so a test can stop the payer mid-call. Refusals answer at once. ' +
      'fail_lookups_next: the next N PRN lookups (GET prns/{prn} of the biller API) answer 503 SERVICE_UNAVAILABLE.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      properties: {
        fail_next: { type: 'integer', minimum: 0, maximum: 1000 },
        delay_ms: { type: 'integer', minimum: 0, maximum: MAX_DELAY_MS },
        fail_lookups_next: { type: 'integer', minimum: 0, maximum: 1000 },
      },
    },
  })
  async setFaults(@Body() body: unknown) {
    return envelope(200, 'Biller faults set', faultsBody(await this.biller.setFaults(parseFaults(body))));
  }
}
