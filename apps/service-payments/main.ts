import 'reflect-metadata';
import { DisbursementsServiceModule } from '@paygate/disbursements-service';
import { PaymentsServiceModule } from '@paygate/payments-service';
import { runApp } from '@paygate/platform';

// The payments context (service payments, wallets) and the disbursements context (refunds, payouts) beside it.
void runApp('service-payments', [PaymentsServiceModule, DisbursementsServiceModule]);
