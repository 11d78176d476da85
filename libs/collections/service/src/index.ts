export { CollectionsServiceModule } from './collections-service.module';
