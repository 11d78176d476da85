export { DashboardModule } from './dashboard.module';
