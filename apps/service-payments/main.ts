import 'reflect-metadata';
import { runApp } from '@paygate/platform';

// PRN validation and payment arrive with the service-payments issue; until then the app runs
// the platform only (health, readiness) so deployments already include it.
void runApp('service-payments', []);
