import 'reflect-metadata';
import { CollectionsServiceModule } from '@paygate/collections-service';
import { runApp } from '@paygate/platform';

void runApp('collections', [CollectionsServiceModule]);
