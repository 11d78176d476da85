import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import type { Config } from '@paygate/config';
import { CONFIG, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { migrate } from '@paygate/sql';
import { Background } from './background';
import { CardApiController } from './card/card-api.controller';
import { CardCheckout } from './card/card-checkout';
import { CARD_TABLES, CardStore } from './card/card-store';
import { CheckoutPageController } from './card/checkout-page.controller';
import { MomoController } from './momo/momo.controller';
import { MomoSimulator } from './momo/momo-simulator';
import { MOMO_TABLES, MomoStore } from './momo/momo-store';
import { SANDBOX_CONFIG } from './sandbox-config';

/**
 * Simulated payment providers speaking provider-shaped HTTP APIs: mobile money in the shape of
 * MTN MoMo's Collection API under /sandbox/momo, and a hosted card checkout under /sandbox/card.
 */
@Module({
  controllers: [MomoController, CardApiController, CheckoutPageController],
  providers: [
    { provide: SANDBOX_CONFIG, inject: [CONFIG], useFactory: (config: Config) => config.sandbox },
    Background,
    MomoStore,
    MomoSimulator,
    CardStore,
    CardCheckout,
  ],
})
export class SandboxProvidersModule implements OnModuleInit {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  async onModuleInit(): Promise<void> {
    await migrate(this.infrastructure.sql, 'sandbox-providers', [...MOMO_TABLES, ...CARD_TABLES]);
  }
}
