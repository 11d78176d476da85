import {
  Inject,
  Injectable,
  SetMetadata,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMITER } from '../tokens';
import { TooManyRequests, type RateLimitClass, type RateLimiter } from './rate-limiter';
import { sourceAddressKey } from './source-address';

const RATE_LIMIT_CLASS = 'paygate:rate-limit-class';

/**
 * The bucket a route's requests take from; routes that declare nothing are `public` (per source
 * address). `merchant` routes are limited once the merchant is authenticated (by the gateway),
 * so this guard leaves them alone.
 */
export const RateLimitedAs = (limitClass: RateLimitClass) => SetMetadata(RATE_LIMIT_CLASS, limitClass);

/** Health probes are never limited: an orchestrator must always see the truth. */
export const NotRateLimited = () => SetMetadata(RATE_LIMIT_CLASS, false);

/** The client's address as Fastify sees it (TRUST_PROXY decides whether X-Forwarded-For counts). */
export const sourceAddress = (request: FastifyRequest) => sourceAddressKey(request.ip);

/** Takes a token for `key` from `limitClass`; headers go on the response, a refusal is a 429. */
export async function enforceRateLimit(
  limiter: RateLimiter,
  reply: FastifyReply,
  limitClass: RateLimitClass,
  key: string,
): Promise<void> {
  const verdict = await limiter.check(limitClass, key);
  void reply.headers(verdict.headers);
  if (!verdict.allowed) throw new TooManyRequests(verdict.headers['Retry-After']);
}

/** Global guard: every route's per-source-address bucket, before any other guard runs. */
@Injectable()
export class SourceRateLimitGuard implements CanActivate {
  constructor(
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const declared = this.reflector.getAllAndOverride<RateLimitClass | false | undefined>(RATE_LIMIT_CLASS, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (declared === false || declared === 'merchant') return true;
    const http = context.switchToHttp();
    await enforceRateLimit(
      this.limiter,
      http.getResponse<FastifyReply>(),
      declared ?? 'public',
      sourceAddress(http.getRequest<FastifyRequest>()),
    );
    return true;
  }
}

/**
 * The source address's `public` bucket for the requests `applies` picks among those no controller
 * answers, where the guard above never runs: unmatched paths and methods, plain Fastify routes
 * such as the OpenAPI page. Taken once the path and query string have passed the input checks
 * and before the body is read, since an unmatched request is answered then (edge-answers.ts);
 * the refusal is the guard's 429 (Nest's error handler answers it).
 */
export function limitOutsideControllers(app: INestApplication, applies: (request: FastifyRequest) => boolean): void {
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  let limiter: RateLimiter | undefined;
  fastify.addHook('preParsing', async (request, reply) => {
    if (!applies(request)) return;
    // Resolved on the first request: the application is initialised by then.
    limiter ??= app.get<RateLimiter>(RATE_LIMITER);
    await enforceRateLimit(limiter, reply, 'public', sourceAddress(request));
  });
}
