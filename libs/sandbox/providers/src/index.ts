export { SandboxProvidersModule } from './sandbox-providers.module';
export { SANDBOX_MIGRATIONS } from './migrations';
