export { CollectionsServiceModule } from './collections-service.module';
export { COLLECTIONS_READ_MODEL } from './read-model';
export { COLLECTIONS_MIGRATIONS } from './migrations';
