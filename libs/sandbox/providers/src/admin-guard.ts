import { Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { bearerTokenMatches } from '@paygate/platform';
import { SANDBOX_CONFIG, type SandboxConfig } from './sandbox-config';

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
    const { authorization } = context.switchToHttp().getRequest<FastifyRequest>().headers;
    if (!bearerTokenMatches(authorization, this.config.adminToken))
      throw new UnauthorizedException('a valid admin bearer token is required');
    return true;
  }
}
