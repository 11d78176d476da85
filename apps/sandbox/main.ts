import 'reflect-metadata';
import { runApp } from '@paygate/platform';

// Simulated providers arrive with the collections issue; the app already deploys and reports health.
void runApp('sandbox', []);
