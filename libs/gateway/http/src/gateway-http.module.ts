import { Module, type INestApplication } from '@nestjs/common';
import { DashboardUsers, MerchantAccounts } from '@paygate/merchants';
import type { Config } from '@paygate/config';
import { CONFIG, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { MerchantsAdminController } from './admin/merchants.controller';
import { MoneyOutAdminController } from './admin/money-out.controller';
import { WalletsAdminController } from './admin/wallets.controller';
import { CallbackStreamController, CallbackStreams } from './callback-stream.controller';
import { CallbacksController } from './callbacks.controller';
import { CheckoutReturnController } from './checkout-return.controller';
import { CollectionsController } from './collections.controller';
import { gatewayConfig, type GatewayConfig } from './gateway-config';
import { ApiRequestGuard, AdminGuard, MerchantAuthGuard, MerchantRateLimitGuard, SandboxAliasGuard } from './guards';
import { serveOpenApi } from './openapi';
import { PaymentProvidersController } from './payment-providers.controller';
import { RejectionFilter } from './rejection-status';
import { PayoutsController } from './payouts.controller';
import { RefundsController } from './refunds.controller';
import { WalletController } from './wallet.controller';
import { DASHBOARD_USERS, GATEWAY_CONFIG, MERCHANTS } from './tokens';

/** The merchant-facing HTTP API: authenticates, validates, and turns requests into commands. */
@Module({
  controllers: [
    CollectionsController,
    CallbacksController,
    CallbackStreamController,
    PaymentProvidersController,
    MerchantsAdminController,
    CheckoutReturnController,
    WalletController,
    RefundsController,
    PayoutsController,
    WalletsAdminController,
    MoneyOutAdminController,
  ],
  providers: [
    { provide: GATEWAY_CONFIG, inject: [CONFIG], useFactory: (config: Config) => gatewayConfig(config) },
    {
      provide: MERCHANTS,
      inject: [INFRASTRUCTURE, GATEWAY_CONFIG],
      useFactory: (infra: Infrastructure, config: GatewayConfig) =>
        MerchantAccounts.open(infra.sql, config.secretBox, config.mode),
    },
    {
      provide: DASHBOARD_USERS,
      // After MERCHANTS, whose migrations create the users' tables with the merchants'.
      inject: [INFRASTRUCTURE, MERCHANTS],
      useFactory: (infra: Infrastructure) => DashboardUsers.open(infra.sql),
    },
    ApiRequestGuard,
    MerchantAuthGuard,
    MerchantRateLimitGuard,
    AdminGuard,
    SandboxAliasGuard,
    CallbackStreams,
  ],
  exports: [MERCHANTS, DASHBOARD_USERS],
})
export class GatewayHttpModule {
  static configure(app: INestApplication): void {
    // Registered after the platform's catch-all filter, so refusals are matched first.
    app.useGlobalFilters(new RejectionFilter());
    serveOpenApi(app, GatewayHttpModule);
  }
}
