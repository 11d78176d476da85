export { DisbursementsServiceModule } from './disbursements-service.module';
export { DISBURSEMENTS_MIGRATIONS } from './migrations';
export { DisbursementsProjection } from './disbursements-projection';
