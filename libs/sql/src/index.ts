export * from './sql-database';
export { openSqlDatabase } from './open-sql-database';
export { postgresUrlInSchema, type PostgresOptions } from './postgres-database';
export { defineMigrations, migrate, MigrationError, verifyMigrationsOnly, type Migration } from './migrations';
export { countStatements, statementKind, SQL_STATEMENTS_METRIC, type StatementKind } from './counted-sql-database';
export { CommitAnnouncer, listenInSchema, notifyInSchema } from './notifications';
export { forUpdate, fromJson, inTextList, lockInTransaction, sqlNow, SQLITE_NOW, textList } from './dialects';
