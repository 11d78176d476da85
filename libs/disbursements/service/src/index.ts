export { DisbursementsServiceModule } from './disbursements-service.module';
export { DISBURSEMENTS_MIGRATIONS } from './migrations';
export { DisbursementsProjection } from './disbursements-projection';
export { DISBURSEMENTS_READ_MODEL } from './read-model';
