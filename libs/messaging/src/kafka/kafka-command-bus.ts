import { randomUUID } from 'node:crypto';
import { Partitioners, type Admin, type Kafka, type KafkaMessage, type Producer, type ProducerRecord } from 'kafkajs';
import type { MessageName, PayloadOf, ResultOf, ServiceContract, ServiceHandlers, ServiceRef } from '@paygate/contracts';
import { currentLogContext, withLogContext, type Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { UnavailableError } from '@paygate/contracts';
import { CommandTimeoutError, replyValue, timedCommandHandling, type CommandBus, type CommandReply, type SendOptions, type WireHandlers } from '../command-bus';
import { ensureTopics } from './kafka-connection';
import { startSupervisedConsumer, type SupervisedConsumer } from './supervised-consumer';

export const commandTopic = (service: string) => `paygate.commands.${service}`;

/**
 * Headers carrying the sender's log context to the handling process (not `correlation-id`,
 * which pairs a reply with its command).
 */
const REQUEST_ID_HEADER = 'paygate-request-id';
const FLOW_HEADER = 'paygate-correlation-id';

function contextHeaders(): Record<string, string> {
  const context = currentLogContext();
  const headers: Record<string, string> = {};
  if (context?.requestId) headers[REQUEST_ID_HEADER] = context.requestId;
  if (context?.correlationId) headers[FLOW_HEADER] = context.correlationId;
  return headers;
}

interface Pending {
  resolve(reply: CommandReply): void;
  timer: NodeJS.Timeout;
}

/**
 * Request-reply over Kafka. Commands go to the owning service's topic (its instances share
 * one consumer group); each sending process has its own single-partition reply topic, whose
 * consumer has joined before the first command is sent, so no reply can be missed.
 */
const MAX_CONCURRENT_KEYS = 128;

/** Runs `work` over `items` with at most `limit` at once. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** kafkajs wraps the broker's answer in its retry errors (`cause`). */
function isUnknownTopic(error: unknown): boolean {
  for (let at = error as { type?: string; cause?: unknown } | undefined; at; at = at.cause as typeof at)
    if (at.type === 'UNKNOWN_TOPIC_OR_PARTITION') return true;
  return false;
}

export class KafkaCommandBus implements CommandBus {
  private readonly admin: Admin;
  private readonly producer: Producer;
  private replies: Producer;
  private renewingReplies?: Promise<void>;
  private readonly repliesInFlight = new Set<Promise<void>>();
  private readonly servers: SupervisedConsumer[] = [];
  private readonly pending = new Map<string, Pending>();
  private readonly replyTopic = `paygate.replies.${randomUUID()}`;
  private replyConsumer?: Promise<SupervisedConsumer>;
  /** Command topics this process has created or verified, by service. */
  private readonly commandTopics = new Map<string, Promise<void>>();
  private connected?: Promise<void>;
  private readonly handle: ReturnType<typeof timedCommandHandling>;

  constructor(
    private readonly kafka: Kafka,
    private readonly log: Logger,
    private readonly partitions: number,
    metrics: Metrics,
    private readonly timeoutMs: number,
  ) {
    this.handle = timedCommandHandling(metrics, log);
    this.admin = kafka.admin();
    // Not idempotent and not limited to one request in flight: a command is retried by its
    // sender's time-out, not by the producer, and one slow send must not queue every other.
    this.producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
    this.replies = this.newRepliesProducer();
  }

  /** Shared by every caller; a failed attempt is forgotten so the next caller tries again. */
  private connect(): Promise<void> {
    this.connected ??= Promise.all([this.admin.connect(), this.producer.connect(), this.replies.connect()]).then(
      () => undefined,
      (error: unknown) => {
        this.connected = undefined;
        throw error;
      },
    );
    return this.connected;
  }

  /** The sender creates the command topic too: a gateway may start before the service it sends to. */
  private commandTopicReady(service: string): Promise<void> {
    let ready = this.commandTopics.get(service);
    if (!ready) {
      ready = ensureTopics(this.admin, [commandTopic(service)], this.partitions).catch((error: unknown) => {
        this.commandTopics.delete(service);
        throw error;
      });
      this.commandTopics.set(service, ready);
    }
    return ready;
  }

  async send<Contract extends ServiceContract, Name extends MessageName<Contract>>(
    { name: service }: ServiceRef<Contract>,
    command: Name,
    payload: PayloadOf<Contract, Name>,
    options: SendOptions = {},
  ): Promise<ResultOf<Contract, Name>> {
    const correlationId = randomUUID();
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    try {
      await this.listenForReplies();
      await this.commandTopicReady(service);
    } catch (error) {
      throw new UnavailableError('the broker is not reachable', { cause: error });
    }
    const reply = new Promise<CommandReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new CommandTimeoutError(service, command, timeoutMs));
      }, timeoutMs);
      this.pending.set(correlationId, { resolve, timer });
    });
    const sent = this.producer
      .send({
        topic: commandTopic(service),
        acks: -1,
        messages: [
          {
            key: options.key ?? correlationId,
            value: JSON.stringify(payload),
            headers: { command, 'correlation-id': correlationId, 'reply-to': this.replyTopic, deadline: String(Date.now() + timeoutMs), ...contextHeaders() },
          },
        ],
      })
      .then(
        () => reply,
        (error: unknown) => {
          clearTimeout(this.pending.get(correlationId)?.timer);
          this.pending.delete(correlationId);
          throw new UnavailableError('the broker is not reachable', { cause: error });
        },
      );
    // A send still retrying against a missing broker when the time-out fires: the time-out
    // answers, and whichever settles second has nobody to tell (never an unhandled rejection).
    reply.catch(() => undefined);
    sent.catch(() => undefined);
    return replyValue(await Promise.race([sent, reply])) as ResultOf<Contract, Name>;
  }

  private listenForReplies(): Promise<SupervisedConsumer> {
    this.replyConsumer ??= (async () => {
      await this.connect();
      await ensureTopics(this.admin, [this.replyTopic], 1);
      return startSupervisedConsumer(
        this.kafka,
        {
          groupId: this.replyTopic,
          topics: [this.replyTopic],
          fromBeginning: true,
          description: 'command replies',
          run: {
            eachMessage: async ({ message }) => {
              const correlationId = message.headers?.['correlation-id']?.toString();
              const pending = correlationId ? this.pending.get(correlationId) : undefined;
              if (!pending || !message.value || !correlationId) return;
              this.pending.delete(correlationId);
              clearTimeout(pending.timer);
              pending.resolve(JSON.parse(message.value.toString('utf8')) as CommandReply);
            },
          },
        },
        this.log,
      );
    })().catch((error: unknown) => {
      this.replyConsumer = undefined;
      throw error;
    });
    return this.replyConsumer;
  }

  async serve<Contract extends ServiceContract>({ name: service }: ServiceRef<Contract>, served: ServiceHandlers<Contract>): Promise<void> {
    const handlers: WireHandlers = served;
    await this.connect();
    await ensureTopics(this.admin, [commandTopic(service)], this.partitions);
    const server = await startSupervisedConsumer(
      this.kafka,
      {
        groupId: `paygate.commands.${service}`,
        topics: [commandTopic(service)],
        // Commands sent while no instance was up are stale: their senders have timed out.
        fromBeginning: false,
        description: `commands of ${service}`,
        run: {
          partitionsConsumedConcurrently: this.partitions,
          eachBatchAutoResolve: false,
          // Commands with the same key are handled in order; different keys at once, so one slow
          // command does not hold up its whole partition.
          eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
            const byKey = new Map<string, KafkaMessage[]>();
            for (const message of batch.messages) {
              const key = message.key?.toString('utf8') ?? message.offset;
              byKey.set(key, [...(byKey.get(key) ?? []), message]);
            }
            await inParallel([...byKey.values()], MAX_CONCURRENT_KEYS, async (messages) => {
              for (const message of messages) await this.handleCommand(service, handlers, message);
            });
            resolveOffset(batch.messages[batch.messages.length - 1].offset);
            await heartbeat();
          },
        },
      },
      this.log,
    );
    this.servers.push(server);
  }

  private async handleCommand(service: string, handlers: WireHandlers, message: KafkaMessage): Promise<void> {
    const command = message.headers?.command?.toString() ?? '';
    const correlationId = message.headers?.['correlation-id']?.toString();
    const replyTo = message.headers?.['reply-to']?.toString();
    if (!message.value || !correlationId || !replyTo) {
      this.log.warn('dropping malformed command message', { service, command });
      return;
    }
    // Its sender has answered "unavailable" already: carrying it out now (a service back after
    // an outage, a backlog) would do what the merchant was told had not been done.
    const deadline = Number(message.headers?.deadline?.toString());
    if (Number.isFinite(deadline) && Date.now() > deadline) {
      this.log.info('dropping a command its sender gave up on', { service, command, late_ms: Date.now() - deadline });
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(message.value.toString('utf8'));
    } catch {
      this.log.warn('dropping a command that is not JSON', { service, command });
      return;
    }
    const context = { requestId: message.headers?.[REQUEST_ID_HEADER]?.toString(), correlationId: message.headers?.[FLOW_HEADER]?.toString() };
    const reply = await withLogContext(context, () => this.handle(handlers, command, payload));
    // The command is done; its reply goes out beside the next commands, never in front of them:
    // a sender that just started may have a reply topic the broker is still settling (a few
    // retries), and one that is gone has no topic at all. A sender who hears nothing answers
    // "unavailable", and its retry is answered from what was done.
    const sending = this.sendReply({
      topic: replyTo,
      acks: -1,
      messages: [{ key: correlationId, value: JSON.stringify(reply), headers: { 'correlation-id': correlationId } }],
    })
      .then(
        () => undefined,
        (error: unknown) => this.log.debug('a command reply was not delivered', { service, command, error }),
      )
      .finally(() => this.repliesInFlight.delete(sending));
    this.repliesInFlight.add(sending);
  }

  /**
   * kafkajs puts every topic a producer has written to into each later metadata request, and a
   * request naming a deleted topic fails whole: once a sender that has stopped has deleted its
   * reply topic, replies to every sender started since would fail. A new producer forgets them.
   */
  private async sendReply(record: ProducerRecord): Promise<void> {
    const producer = this.replies;
    try {
      await producer.send(record);
    } catch (error) {
      // Renewed meanwhile by another reply's failure: this one goes by the new producer too.
      if (producer === this.replies && !isUnknownTopic(error)) throw error;
      if (producer === this.replies) await this.renewReplies();
      await this.renewingReplies;
      await this.replies.send(record);
    }
  }

  private renewReplies(): Promise<void> {
    this.renewingReplies ??= (async () => {
      const stale = this.replies;
      const renewed = this.newRepliesProducer();
      await renewed.connect();
      this.replies = renewed;
      // Replies still on their way through the old one finish first.
      setTimeout(() => void stale.disconnect().catch(() => undefined), 10_000).unref();
    })().finally(() => (this.renewingReplies = undefined));
    return this.renewingReplies;
  }

  private newRepliesProducer(): Producer {
    return this.kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 },
    });
  }

  async close(): Promise<void> {
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    await Promise.allSettled(this.servers.map((server) => server.stop()));
    await Promise.allSettled([...this.repliesInFlight]);
    if (this.replyConsumer) {
      const consumer = await this.replyConsumer.catch(() => undefined);
      await consumer?.stop().catch(() => undefined);
      // Reply topics are per process: remove ours so they do not pile up.
      await this.admin.deleteTopics({ topics: [this.replyTopic] }).catch(() => undefined);
    }
    if (this.connected) await Promise.allSettled([this.producer.disconnect(), this.replies.disconnect(), this.admin.disconnect()]);
  }
}
