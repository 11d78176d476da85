import 'reflect-metadata';
import { runApp } from '@paygate/platform';
import { SandboxProvidersModule } from '@paygate/sandbox-providers';

void runApp('sandbox', [SandboxProvidersModule]);
