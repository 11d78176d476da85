/**
 * `npm run test:containers`: starts PostgreSQL, Kafka and KurrentDB in Docker with testcontainers
 * and points the integration suites at them (STORE_URL, BROKER_URL, KURRENTDB_URL), with
 * REQUIRE_SERVICES=1 so a suite that cannot reach one fails. Jest's workers start after this and
 * inherit the variables; global-teardown.ts stops the containers.
 */
import { KafkaContainer } from '@testcontainers/kafka';
import { PostgreSqlContainer } from '@testcontainers/postgresql';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';

/** Images, overridable for a mirror or another version. */
const IMAGES = {
  postgres: process.env.POSTGRES_IMAGE ?? 'postgres:16-alpine',
  kafka: process.env.KAFKA_IMAGE ?? 'confluentinc/cp-kafka:7.9.0',
  kurrentdb: process.env.KURRENTDB_IMAGE ?? 'docker.kurrent.io/kurrent-latest/kurrentdb:latest',
};

/** The Kafka module's listener for clients outside Docker. */
const KAFKA_CLIENT_PORT = 9093;
const KURRENTDB_PORT = 2113;

export default async function startContainers(): Promise<void> {
  const [postgres, kafka, kurrentdb] = await Promise.all([
    new PostgreSqlContainer(IMAGES.postgres).start(),
    new KafkaContainer(IMAGES.kafka).withKraft().start(),
    new GenericContainer(IMAGES.kurrentdb)
      .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_RUN_PROJECTIONS: 'None', KURRENTDB_MEM_DB: 'true' })
      .withExposedPorts(KURRENTDB_PORT)
      .withWaitStrategy(Wait.forHttp('/health/live', KURRENTDB_PORT).forStatusCode(204))
      .start(),
  ]);
  (globalThis as { paygateContainers?: StartedTestContainer[] }).paygateContainers = [postgres, kafka, kurrentdb];
  process.env.STORE_URL = postgres.getConnectionUri();
  process.env.BROKER_URL = `kafka://${kafka.getHost()}:${kafka.getMappedPort(KAFKA_CLIENT_PORT)}`;
  process.env.KURRENTDB_URL = `kurrentdb://${kurrentdb.getHost()}:${kurrentdb.getMappedPort(KURRENTDB_PORT)}?tls=false`;
  process.env.REQUIRE_SERVICES = '1';
  process.stderr.write(
    `containers: STORE_URL=${process.env.STORE_URL} BROKER_URL=${process.env.BROKER_URL} KURRENTDB_URL=${process.env.KURRENTDB_URL}\n`,
  );
}
