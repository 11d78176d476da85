import { redactUrl } from '@paygate/config';
import type { EventStore } from '@paygate/event-store';
import type { Logger } from '@paygate/logging';
import { NO_METRICS, type Metrics } from '@paygate/metrics';
import type { SqlDatabase } from '@paygate/sql';
import { CheckpointStore } from './checkpoints';
import type { CommandBus } from './command-bus';
import { ConsumerInstruments } from './consumer-instruments';
import type { EventBus } from './event-bus';
import type { CommandRoutes } from './remote/command-routes';
import { TcpCommandBus } from './remote/tcp-command-bus';
import { InProcessCommandBus } from './inproc/in-process-command-bus';
import { InProcessEventBus } from './inproc/in-process-event-bus';
import { createKafka, type KafkaSecurity } from './kafka/kafka-connection';
import { KafkaEventBus } from './kafka/kafka-event-bus';

export interface Messaging {
  commands: CommandBus;
  events: EventBus;
  close(): Promise<void>;
}

export interface MessagingOptions {
  /** Identifies this process to the broker (Kafka client id). */
  clientId: string;
  partitions?: number;
  /** How long a sender waits for the owning service's reply before answering "unavailable". */
  commandTimeoutMs?: number;
  /** Where commands go beside a Kafka broker, over mutual TLS (events stay on Kafka); unused in one process. */
  commandRoutes?: CommandRoutes;
  /** TLS trust and SASL credentials for a Kafka broker (KAFKA_TLS_CA_FILE, KAFKA_SASL_*). */
  kafka?: KafkaSecurity;
}

/**
 * BROKER_URL chooses the transport: `inproc://` (one process), or Kafka by `kafka://host:port,…` or `kafkas://…` (TLS).
 */
export async function openMessaging(
  brokerUrl: string,
  deps: { store: EventStore; sql: SqlDatabase; log: Logger; metrics?: Metrics },
  options: MessagingOptions,
): Promise<Messaging> {
  const checkpoints = await CheckpointStore.create(deps.sql);
  const metrics = deps.metrics ?? NO_METRICS;
  const instruments = new ConsumerInstruments(metrics, deps.store, deps.log);
  let commands: CommandBus;
  let events: EventBus;
  if (brokerUrl === 'inproc://' || brokerUrl === 'inproc') {
    commands = new InProcessCommandBus(metrics, deps.log);
    events = new InProcessEventBus(deps.store, checkpoints, deps.log, instruments);
  } else if (brokerUrl.startsWith('kafka://') || brokerUrl.startsWith('kafkas://')) {
    const kafka = createKafka(brokerUrl, options.kafka ?? {}, options.clientId, deps.log.child({ component: 'kafka' }));
    const partitions = options.partitions ?? 6;
    commands = new TcpCommandBus(
      options.commandRoutes ?? { services: {} },
      deps.log.child({ component: 'commands' }),
      metrics,
      options.commandTimeoutMs ?? 10_000,
    );
    events = new KafkaEventBus(kafka, deps.store, deps.sql, checkpoints, deps.log, { partitions }, instruments);
  } else {
    throw new Error(
      `unsupported BROKER_URL "${redactUrl(brokerUrl)}" (expected inproc://, kafka://host:port or kafkas://host:port)`,
    );
  }
  return {
    commands,
    events,
    close: async () => {
      await events.close();
      await commands.close();
    },
  };
}
