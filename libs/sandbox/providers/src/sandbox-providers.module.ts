import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CONFIG, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { migrate } from '@paygate/sql';
import { SandboxAdminGuard } from './admin-guard';
import { Background } from './background';
import { BillerAdminController } from './biller/biller-admin.controller';
import { BillerApiController } from './biller/biller-api.controller';
import { BillerSandbox } from './biller/biller-sandbox';
import { BillerStore } from './biller/biller-store';
import { CardApiController } from './card/card-api.controller';
import { CardCheckout } from './card/card-checkout';
import { CardStore } from './card/card-store';
import { CheckoutPageController } from './card/checkout-page.controller';
import { MomoController } from './momo/momo.controller';
import { MomoSimulator } from './momo/momo-simulator';
import { MomoStore } from './momo/momo-store';
import { SANDBOX_MIGRATIONS } from './migrations';
import { SANDBOX_CONFIG, sandboxConfigFrom } from './sandbox-config';

/**
 * Simulated payment providers speaking provider-shaped HTTP APIs: mobile money in the shape of
 * MTN MoMo's Collection API under /sandbox/momo, a hosted card checkout under /sandbox/card, and
 * a PRN biller under /sandbox/biller, with its test data and faults at /sandbox/v1 (admin).
 * Wallet top-ups are Paygate's, not a provider's: the gateway's admin API serves them.
 */
@Module({
  controllers: [MomoController, CardApiController, CheckoutPageController, BillerApiController, BillerAdminController],
  providers: [
    { provide: SANDBOX_CONFIG, inject: [CONFIG], useFactory: sandboxConfigFrom },
    Background,
    MomoStore,
    MomoSimulator,
    CardStore,
    CardCheckout,
    BillerStore,
    BillerSandbox,
    SandboxAdminGuard,
  ],
})
export class SandboxProvidersModule implements OnModuleInit {
  /** Simulated money has no place in a live deployment (refuseTestModeOnlyFeatures). */
  static readonly testModeOnly = 'the sandbox (simulated providers and their admin routes under /sandbox)';

  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  async onModuleInit(): Promise<void> {
    await migrate(this.infrastructure.sql, SANDBOX_MIGRATIONS);
  }
}
