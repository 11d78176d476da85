import { Module } from '@nestjs/common';
import type { Config } from '@paygate/config';
import {
  DashboardActivity,
  DashboardUsers,
  MerchantAccounts,
  secretBoxFromConfig,
  SignInAttempts,
} from '@paygate/merchants';
import { CONFIG, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { ActionsController } from './actions.controller';
import { CollectionData } from './collection-data';
import { FormTokens } from './form-token';
import { dashboardConfig, type DashboardConfig } from './dashboard-config';
import { PagesController } from './pages.controller';
import { PayoutsController } from './payouts.controller';
import { DashboardSessions } from './sessions';
import { SettingsData } from './settings-data';
import { SignInController } from './sign-in.controller';
import {
  COLLECTION_DATA,
  DASHBOARD_CONFIG,
  FORM_TOKENS,
  DASHBOARD_SESSIONS,
  DASHBOARD_USERS,
  MERCHANT_ACCOUNTS,
  SIGN_IN_ATTEMPTS,
  DASHBOARD_ACTIVITY,
  SETTINGS_DATA,
} from './tokens';

/** The merchant dashboard under /dashboard, composed into the gateway beside its API. */
@Module({
  controllers: [SignInController, PagesController, ActionsController, PayoutsController],
  providers: [
    { provide: DASHBOARD_CONFIG, inject: [CONFIG], useFactory: (config: Config) => dashboardConfig(config) },
    {
      provide: FORM_TOKENS,
      inject: [CONFIG],
      useFactory: (config: Config) => FormTokens.fromMasterKey(config.merchants.masterKey),
    },
    {
      provide: MERCHANT_ACCOUNTS,
      inject: [INFRASTRUCTURE, CONFIG],
      useFactory: (infra: Infrastructure, config: Config) =>
        MerchantAccounts.open(infra.sql, secretBoxFromConfig(config.merchants.masterKey), config.mode),
    },
    {
      provide: DASHBOARD_USERS,
      // After MERCHANT_ACCOUNTS, whose migrations create the users' tables with the merchants'.
      inject: [INFRASTRUCTURE, MERCHANT_ACCOUNTS],
      useFactory: (infra: Infrastructure) => DashboardUsers.open(infra.sql),
    },
    {
      provide: DASHBOARD_SESSIONS,
      inject: [DASHBOARD_USERS, MERCHANT_ACCOUNTS, DASHBOARD_CONFIG],
      useFactory: (users: DashboardUsers, merchants: MerchantAccounts, config: DashboardConfig) =>
        new DashboardSessions(users, merchants, config),
    },
    {
      provide: DASHBOARD_ACTIVITY,
      inject: [INFRASTRUCTURE, MERCHANT_ACCOUNTS],
      useFactory: (infra: Infrastructure) => DashboardActivity.open(infra.sql),
    },
    {
      provide: SETTINGS_DATA,
      inject: [MERCHANT_ACCOUNTS, DASHBOARD_USERS, DASHBOARD_ACTIVITY],
      useFactory: (merchants: MerchantAccounts, users: DashboardUsers, activity: DashboardActivity) =>
        new SettingsData(merchants, users, activity),
    },
    {
      provide: COLLECTION_DATA,
      inject: [INFRASTRUCTURE],
      useFactory: (infra: Infrastructure) => new CollectionData(infra),
    },
    {
      provide: SIGN_IN_ATTEMPTS,
      inject: [INFRASTRUCTURE, MERCHANT_ACCOUNTS],
      useFactory: (infra: Infrastructure) => SignInAttempts.open(infra.sql),
    },
  ],
})
export class DashboardModule {}
