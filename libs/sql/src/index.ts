export * from './sql-database';
export { openSqlDatabase } from './open-sql-database';
export { postgresUrlInSchema, type PostgresOptions } from './postgres-database';
export { defineMigrations, migrate, MigrationError, verifyMigrationsOnly, type Migration } from './migrations';
