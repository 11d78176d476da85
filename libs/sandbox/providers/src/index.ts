export { SandboxProvidersModule } from './sandbox-providers.module';
