export { WebhooksServiceModule } from './webhooks-service.module';
export { DELIVERIES_READ_MODEL } from './read-model';
export { WEBHOOKS_MIGRATIONS } from './migrations';
