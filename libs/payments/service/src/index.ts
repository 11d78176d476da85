export { PaymentsServiceModule } from './payments-service.module';
export { PAYMENTS_READ_MODEL } from './read-model';
export { PAYMENTS_MIGRATIONS } from './migrations';
