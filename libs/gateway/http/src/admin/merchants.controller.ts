import {
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Patch,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import type { DashboardUsers, Merchant, MerchantAccounts, MerchantKeys } from '@paygate/merchants';
import { callbackUrlRefusal, type AddressPolicy } from '@paygate/net-guard';
import { envelope } from '@paygate/platform';
import { CreateMerchantDto, InviteUserDto, IssueKeysDto, UpdateMerchantDto } from '../dto/merchant.dto';
import type { GatewayConfig } from '../gateway-config';
import { AdminGuard, ApiRequestGuard } from '../guards';
import { AdminOperation, ApiAnswer, ApiConflict, ApiNotFound, PathParam } from '../openapi/responses';
import { InvitedUserDto, IssuedMerchantDto, MERCHANT_ID_PATTERN, MerchantDto } from '../openapi/schemas';
import { DASHBOARD_USERS, GATEWAY_CONFIG, MERCHANTS } from '../tokens';
import { validateBody, ValidationFailed, type FieldError } from '../validation';

const CALLBACK_URL_FIELDS = [
  'collection_callback_url',
  'service_payments_callback_url',
  'payouts_callback_url',
] as const;

/**
 * Callback URLs the dispatcher would refuse are refused when they are configured, not first at
 * delivery: https only (http too when private callbacks are allowed) and no host in a non-public
 * range or named like localhost. A name is checked again each time it resolves.
 */
async function validMerchantBody<T extends Partial<Record<(typeof CALLBACK_URL_FIELDS)[number], string | null>>>(
  dto: new () => T,
  body: unknown,
  callbackTargets: AddressPolicy,
): Promise<T> {
  const { value, errors } = await validateBody(dto, body);
  const malformed = new Set(errors.map((error) => error.field));
  const refused = CALLBACK_URL_FIELDS.flatMap((field): FieldError[] => {
    const url = value[field];
    const refusal =
      typeof url === 'string' && !malformed.has(field) ? callbackUrlRefusal(url, callbackTargets) : undefined;
    return refusal === undefined ? [] : [{ field, message: `${field} ${refusal}` }];
  });
  if (errors.length > 0 || refused.length > 0) throw new ValidationFailed([...errors, ...refused]);
  return value;
}

function present(merchant: Merchant, keys?: MerchantKeys) {
  return {
    id: merchant.id,
    name: merchant.name,
    status: merchant.status,
    public_key: merchant.publicKey,
    // Secrets are shown when issued, never again.
    ...(keys && { secret_key: keys.secretKey, signing_key: keys.signingKey }),
    collection_callback_url: merchant.collectionCallbackUrl,
    service_payments_callback_url: merchant.servicePaymentsCallbackUrl,
    payout_approval_threshold: merchant.payoutApprovalThreshold,
    payout_daily_cap: merchant.payoutDailyCap,
    payouts_callback_url: merchant.payoutsCallbackUrl,
    created_at: merchant.createdAt,
    updated_at: merchant.updatedAt,
  };
}

@ApiTags('admin')
@Controller('admin/v1/merchants')
@UseGuards(ApiRequestGuard, AdminGuard)
export class MerchantsAdminController {
  constructor(
    @Inject(MERCHANTS) private readonly merchants: MerchantAccounts,
    @Inject(DASHBOARD_USERS) private readonly users: DashboardUsers,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @AdminOperation({
    id: 'createMerchant',
    summary: 'Create a merchant; the response is the only time its secret and signing keys are shown',
    description:
      'Callback URLs must be https and must not name a loopback, private or other non-public address, or localhost (http and local receivers are accepted when ALLOW_PRIVATE_CALLBACKS=true).',
    body: true,
    invalid: 'data.errors names each bad field (a callback URL the address guard refuses included)',
  })
  @ApiBody({ type: CreateMerchantDto })
  @ApiAnswer(201, 'Created, with its keys', IssuedMerchantDto)
  async create(@Body() body: unknown) {
    const value = await validMerchantBody(CreateMerchantDto, body, this.config.callbackTargets);
    const { merchant, keys } = await this.merchants.create({
      name: value.name.trim(),
      collectionCallbackUrl: value.collection_callback_url,
      servicePaymentsCallbackUrl: value.service_payments_callback_url,
      payoutsCallbackUrl: value.payouts_callback_url,
    });
    return envelope(201, 'Merchant created', present(merchant, keys));
  }

  @Get(':id')
  @AdminOperation({
    id: 'getMerchant',
    summary: 'A merchant',
    description: 'The merchant without its secret and signing keys.',
    body: false,
  })
  @PathParam('id', MERCHANT_ID_PATTERN, 'mer_7Hc2kq9Z')
  @ApiAnswer(200, 'The merchant', MerchantDto)
  @ApiNotFound('No merchant has this id')
  async get(@Param('id') id: string) {
    return envelope(200, 'Merchant found', present(await this.existing(() => this.merchants.get(id))));
  }

  @Patch(':id')
  @ApiBody({ type: UpdateMerchantDto })
  @AdminOperation({
    id: 'updateMerchant',
    summary: 'Change callback URLs, status or payout limits',
    description:
      'null removes a callback URL, the payout approval threshold (no payout then waits for approval) or the daily payout cap; a suspended merchant gets 403 on every merchant route.',
    body: true,
    invalid: 'data.errors names each bad field',
  })
  @PathParam('id', MERCHANT_ID_PATTERN, 'mer_7Hc2kq9Z')
  @ApiAnswer(200, 'The merchant as changed', MerchantDto)
  @ApiNotFound('No merchant has this id')
  async update(@Param('id') id: string, @Body() body: unknown) {
    const value = await validMerchantBody(UpdateMerchantDto, body, this.config.callbackTargets);
    const merchant = await this.existing(() =>
      this.merchants.update(id, {
        status: value.status,
        collectionCallbackUrl: value.collection_callback_url,
        servicePaymentsCallbackUrl: value.service_payments_callback_url,
        payoutApprovalThreshold: value.payout_approval_threshold,
        payoutDailyCap: value.payout_daily_cap,
        payoutsCallbackUrl: value.payouts_callback_url,
      }),
    );
    return envelope(200, 'Merchant updated', present(merchant));
  }

  @Post(':id/keys')
  @HttpCode(201)
  @ApiBody({ type: IssueKeysDto })
  @AdminOperation({
    id: 'issueMerchantKeys',
    summary: 'Issue new keys; the old ones stop working',
    description:
      '`api` replaces the public and secret keys together, `signing` the signing key; the replaced keys stop working at once.',
    body: true,
    invalid: 'keys not a non-empty array of "api" and "signing"',
  })
  @PathParam('id', MERCHANT_ID_PATTERN, 'mer_7Hc2kq9Z')
  @ApiAnswer(201, 'The merchant with its new keys', IssuedMerchantDto)
  @ApiNotFound('No merchant has this id')
  async issueKeys(@Param('id') id: string, @Body() body: unknown) {
    const { value, errors } = await validateBody(IssueKeysDto, body);
    if (errors.length > 0) throw new ValidationFailed(errors);
    const issued = await this.existing(() => this.merchants.rotateKeys(id, value.keys));
    return envelope(201, 'Keys issued', present(issued.merchant, issued.keys));
  }

  @Post(':id/users')
  @HttpCode(201)
  @ApiBody({ type: InviteUserDto })
  @AdminOperation({
    id: 'inviteDashboardUser',
    summary: "Invite a person to the merchant's dashboard",
    description:
      'Creates a dashboard user with a role and answers a one-time invite link (valid 24 hours) where they set their password; the link is shown only here.',
    body: true,
    invalid: 'email not an email address, or role not owner, developer or viewer',
  })
  @PathParam('id', MERCHANT_ID_PATTERN, 'mer_7Hc2kq9Z')
  @ApiAnswer(201, 'Invited', InvitedUserDto)
  @ApiNotFound('No merchant has this id')
  @ApiConflict('This email is already a dashboard user of this merchant')
  async inviteUser(@Param('id') id: string, @Body() body: unknown, @Req() request: FastifyRequest) {
    const { value, errors } = await validateBody(InviteUserDto, body);
    if (errors.length > 0) throw new ValidationFailed(errors);
    await this.existing(() => this.merchants.get(id));
    const invited = await this.users.invite(id, value.email, value.role);
    if (!invited) throw new ConflictException('this email is already a dashboard user of this merchant');
    return envelope(201, 'User invited', {
      user_id: invited.user.id,
      email: invited.user.email,
      role: invited.user.role,
      invite_url: `${request.protocol}://${request.host}/dashboard/invite/${invited.inviteToken}`,
      invite_expires_at: invited.expiresAt,
    });
  }

  /** An id that cannot be one of ours never gets here (PathParam): the router does not serve it. */
  private async existing<T>(lookup: () => Promise<T | null>): Promise<T> {
    const found = await lookup();
    if (!found) throw new NotFoundException('merchant not found');
    return found;
  }
}
