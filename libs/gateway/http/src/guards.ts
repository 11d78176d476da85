import {
  BadRequestException,
  ForbiddenException,
  NotFoundException,
  Inject,
  Injectable,
  UnauthorizedException,
  UnsupportedMediaTypeException,
  SetMetadata,
  UseGuards,
  applyDecorators,
  createParamDecorator,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { keyOfOtherMode, type Merchant, type MerchantAccounts } from '@paygate/merchants';
import {
  bearerTokenMatches,
  enforceRateLimit,
  RATE_LIMITER,
  RateLimitedAs,
  sourceAddress,
  type RateLimiter,
} from '@paygate/platform';
import type { GatewayConfig } from './gateway-config';
import { GATEWAY_CONFIG, MERCHANTS } from './tokens';

type ApiRequest = FastifyRequest & { merchant?: Merchant };

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Rules every merchant API request obeys (docs/api.md, Conventions): version 1 only, JSON bodies only.
 * Fastify has already answered 413 and malformed JSON by the time this runs.
 */
@Injectable()
export class ApiRequestGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const version = header(request, 'x-api-version');
    if (version !== undefined && version.trim() !== '1')
      throw new BadRequestException(`x-api-version ${version} is not supported; this API serves version 1`);
    if (request.method === 'POST') {
      const type = header(request, 'content-type') ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type))
        throw new UnsupportedMediaTypeException('request bodies must be application/json');
    }
    return true;
  }
}

export const SECRET_KEY_REQUIRED = 'paygate:secret-key-required';

/**
 * `public-key` identifies the merchant; endpoints marked with RequireSecretKey also need
 * `secret-key`. A key of the other mode (pk_test_ in a live deployment) is refused as such. A failed authentication takes a token from the source address's public bucket,
 * so guessing keys is limited like any other anonymous traffic.
 */
@Injectable()
export class MerchantAuthGuard implements CanActivate {
  constructor(
    @Inject(MERCHANTS) private readonly merchants: MerchantAccounts,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    try {
      request.merchant = await this.authenticate(
        request,
        this.reflector.get<boolean>(SECRET_KEY_REQUIRED, context.getHandler()) === true,
      );
    } catch (error) {
      await enforceRateLimit(
        this.limiter,
        context.switchToHttp().getResponse<FastifyReply>(),
        'public',
        sourceAddress(request),
      );
      throw error;
    }
    return true;
  }

  private async authenticate(request: FastifyRequest, needsSecret: boolean): Promise<Merchant> {
    const publicKey = header(request, 'public-key');
    if (!publicKey) throw new UnauthorizedException('the public-key header is required');
    const secretKey = header(request, 'secret-key');
    if (needsSecret && !secretKey) throw new UnauthorizedException('the secret-key header is required');
    const otherMode = keyOfOtherMode(this.config.mode, publicKey, secretKey);
    if (otherMode) throw new UnauthorizedException(otherMode);
    const merchant = await this.merchants.authenticate(publicKey, needsSecret ? secretKey : undefined);
    if (!merchant)
      throw new UnauthorizedException(needsSecret ? 'unknown public-key or wrong secret-key' : 'unknown public-key');
    if (merchant.status !== 'active') throw new ForbiddenException('this merchant account is suspended');
    return merchant;
  }
}

/** The authenticated merchant's bucket: one merchant's burst leaves every other merchant's untouched. */
@Injectable()
export class MerchantRateLimitGuard implements CanActivate {
  constructor(@Inject(RATE_LIMITER) private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const merchant = http.getRequest<ApiRequest>().merchant;
    if (!merchant) throw new UnauthorizedException('not authenticated');
    await enforceRateLimit(this.limiter, http.getResponse<FastifyReply>(), 'merchant', merchant.id);
    return true;
  }
}

/** A merchant API route: request rules, then authentication, then the merchant's rate limit. */
export const MerchantApi = () =>
  applyDecorators(RateLimitedAs('merchant'), UseGuards(ApiRequestGuard, MerchantAuthGuard, MerchantRateLimitGuard));

export const CurrentMerchant = createParamDecorator((_: unknown, context: ExecutionContext): Merchant => {
  const merchant = context.switchToHttp().getRequest<ApiRequest>().merchant;
  if (!merchant) throw new UnauthorizedException('not authenticated');
  return merchant;
});

/** `authorization: Bearer $ADMIN_TOKEN`, compared in constant time. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.config.adminToken) throw new UnauthorizedException('the admin API is disabled: ADMIN_TOKEN is not set');
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!bearerTokenMatches(header(request, 'authorization'), this.config.adminToken))
      throw new UnauthorizedException('a valid admin bearer token is required');
    return true;
  }
}

/**
 * The `/sandbox/v1/…` aliases of admin routes (the wallet top-up's old address) are the
 * sandbox's: a live deployment does not serve them, and says where the route is.
 */
@Injectable()
export class SandboxAliasGuard implements CanActivate {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const path = context.switchToHttp().getRequest<FastifyRequest>().url.split('?')[0];
    if (this.config.mode === 'live' && path.startsWith('/sandbox/'))
      throw new NotFoundException(
        `a live deployment serves no sandbox routes: this one is ${path.replace(/^\/sandbox\//, '/admin/')}`,
      );
    return true;
  }
}

export const RequireSecretKey = () => SetMetadata(SECRET_KEY_REQUIRED, true);
