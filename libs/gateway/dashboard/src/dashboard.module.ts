import { Module } from '@nestjs/common';
import { DashboardUsers } from '@paygate/merchants';
import { INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { DashboardController } from './dashboard.controller';
import { SignInLimiter } from './sign-in-limiter';
import { DASHBOARD_USERS, SIGN_IN_LIMITER } from './tokens';

/** The merchant dashboard under /dashboard, composed into the gateway beside its API. */
@Module({
  controllers: [DashboardController],
  providers: [
    {
      provide: DASHBOARD_USERS,
      inject: [INFRASTRUCTURE],
      useFactory: (infra: Infrastructure) => DashboardUsers.open(infra.sql),
    },
    { provide: SIGN_IN_LIMITER, useValue: new SignInLimiter() },
  ],
})
export class DashboardModule {}
