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
import { CardRefundApiController } from './card/card-refund-api.controller';
import { CardRefundStore } from './card/card-refund-store';
import { CardRefunds } from './card/card-refunds';
import { CardStore } from './card/card-store';
import { CheckoutPageController } from './card/checkout-page.controller';
import { DisbursementController } from './momo/disbursement.controller';
import { DisbursementSimulator } from './momo/disbursement-simulator';
import { DisbursementStore } from './momo/disbursement-store';
import { MomoController } from './momo/momo.controller';
import { MomoSimulator } from './momo/momo-simulator';
import { MomoStore } from './momo/momo-store';
import { MoneyOutAdminController } from './money-out-admin.controller';
import { SANDBOX_MIGRATIONS } from './migrations';
import { SANDBOX_CONFIG, sandboxConfigFrom } from './sandbox-config';

/**
 * Simulated payment providers speaking provider-shaped HTTP APIs: mobile money in the shape of
 * MTN MoMo's Collection and Disbursement APIs under /sandbox/momo, a hosted card checkout and card
 * refunds under /sandbox/card, and a PRN biller under /sandbox/biller, with the biller's test data
 * and faults and what money out reached the providers at /sandbox/v1 (admin).
 * Wallet top-ups are Paygate's, not a provider's: the gateway's admin API serves them.
 */
@Module({
  controllers: [
    MomoController,
    DisbursementController,
    CardApiController,
    CardRefundApiController,
    CheckoutPageController,
    BillerApiController,
    BillerAdminController,
    MoneyOutAdminController,
  ],
  providers: [
    { provide: SANDBOX_CONFIG, inject: [CONFIG], useFactory: sandboxConfigFrom },
    Background,
    MomoStore,
    MomoSimulator,
    DisbursementStore,
    DisbursementSimulator,
    CardStore,
    CardCheckout,
    CardRefundStore,
    CardRefunds,
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
