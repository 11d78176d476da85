import 'reflect-metadata';
import { PaymentsServiceModule } from '@paygate/payments-service';
import { runApp } from '@paygate/platform';

void runApp('service-payments', [PaymentsServiceModule]);
