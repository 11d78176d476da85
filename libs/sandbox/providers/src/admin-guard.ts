import { Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { SANDBOX_CONFIG, type SandboxConfig } from './sandbox-config';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when `given` is `expected`, compared in constant time (digests, so lengths leak nothing). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * `authorization: Bearer $ADMIN_TOKEN` on the sandbox's own admin routes (`/sandbox/v1/…`), the
 * token of Paygate's admin API: whoever administers Paygate sets up test data.
 */
@Injectable()
export class SandboxAdminGuard implements CanActivate {
  constructor(@Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.config.adminToken)
      throw new UnauthorizedException('the sandbox admin API is disabled: ADMIN_TOKEN is not set');
    const value = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
    const match = /^Bearer\s+(.+)$/i.exec(typeof value === 'string' ? value : '');
    if (!match || !sameSecret(match[1].trim(), this.config.adminToken.reveal()))
      throw new UnauthorizedException('a valid admin bearer token is required');
    return true;
  }
}
