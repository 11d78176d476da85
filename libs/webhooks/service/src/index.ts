export { WebhooksServiceModule } from './webhooks-service.module';
