export { PaymentsServiceModule } from './payments-service.module';
