import { randomUUID } from 'node:crypto';
import type { Admin, Consumer, Kafka, Producer } from 'kafkajs';
import type { Logger } from '@paygate/logging';
import {
  CommandTimeoutError,
  DEFAULT_COMMAND_TIMEOUT_MS,
  handleToReply,
  replyValue,
  type CommandBus,
  type CommandHandler,
  type CommandReply,
  type SendOptions,
} from '../command-bus';
import { ensureTopics, withDeadline } from './kafka-connection';

export const commandTopic = (service: string) => `paygate.commands.${service}`;

interface Pending {
  resolve(reply: CommandReply): void;
  timer: NodeJS.Timeout;
}

/**
 * Request-reply over Kafka. Commands go to the owning service's topic (its instances share
 * one consumer group); each sending process has its own single-partition reply topic, whose
 * consumer has joined before the first command is sent, so no reply can be missed.
 */
export class KafkaCommandBus implements CommandBus {
  private readonly admin: Admin;
  private readonly producer: Producer;
  private readonly servers: Consumer[] = [];
  private readonly pending = new Map<string, Pending>();
  private readonly replyTopic = `paygate.replies.${randomUUID()}`;
  private replyConsumer?: Promise<Consumer>;
  private connected?: Promise<void>;

  constructor(
    private readonly kafka: Kafka,
    private readonly log: Logger,
    private readonly partitions: number,
  ) {
    this.admin = kafka.admin();
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  }

  private connect(): Promise<void> {
    this.connected ??= Promise.all([this.admin.connect(), this.producer.connect()]).then(() => undefined);
    return this.connected;
  }

  async send<Reply>(service: string, command: string, payload: Record<string, unknown>, options: SendOptions = {}): Promise<Reply> {
    await this.listenForReplies();
    const correlationId = randomUUID();
    const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const reply = new Promise<CommandReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new CommandTimeoutError(service, command, timeoutMs));
      }, timeoutMs);
      this.pending.set(correlationId, { resolve, timer });
    });
    try {
      await this.producer.send({
        topic: commandTopic(service),
        acks: -1,
        messages: [
          {
            key: options.key ?? correlationId,
            value: JSON.stringify(payload),
            headers: { command, 'correlation-id': correlationId, 'reply-to': this.replyTopic },
          },
        ],
      });
    } catch (error) {
      clearTimeout(this.pending.get(correlationId)?.timer);
      this.pending.delete(correlationId);
      throw error;
    }
    return replyValue<Reply>(await reply);
  }

  private listenForReplies(): Promise<Consumer> {
    this.replyConsumer ??= (async () => {
      await this.connect();
      await ensureTopics(this.admin, [this.replyTopic], 1);
      const consumer = this.kafka.consumer({ groupId: this.replyTopic, sessionTimeout: 10_000, heartbeatInterval: 1_000 });
      const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
      await consumer.connect();
      await consumer.subscribe({ topics: [this.replyTopic], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const correlationId = message.headers?.['correlation-id']?.toString();
          const pending = correlationId ? this.pending.get(correlationId) : undefined;
          if (!pending || !message.value || !correlationId) return;
          this.pending.delete(correlationId);
          clearTimeout(pending.timer);
          pending.resolve(JSON.parse(message.value.toString('utf8')) as CommandReply);
        },
      });
      await withDeadline(joined, 30_000, 'Kafka reply consumer');
      return consumer;
    })();
    return this.replyConsumer;
  }

  async serve(service: string, handlers: Record<string, CommandHandler>): Promise<void> {
    await this.connect();
    await ensureTopics(this.admin, [commandTopic(service)], this.partitions);
    const consumer = this.kafka.consumer({ groupId: `paygate.commands.${service}`, sessionTimeout: 10_000, heartbeatInterval: 1_000 });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    // Commands sent while no instance was up are stale: their senders have timed out.
    await consumer.subscribe({ topics: [commandTopic(service)], fromBeginning: false });
    await consumer.run({
      partitionsConsumedConcurrently: this.partitions,
      eachMessage: async ({ message }) => {
        const command = message.headers?.command?.toString() ?? '';
        const correlationId = message.headers?.['correlation-id']?.toString();
        const replyTo = message.headers?.['reply-to']?.toString();
        if (!message.value || !correlationId || !replyTo) {
          this.log.warn('dropping malformed command message', { service, command });
          return;
        }
        const reply = await handleToReply(handlers[command], JSON.parse(message.value.toString('utf8')));
        await this.producer.send({
          topic: replyTo,
          acks: -1,
          messages: [{ key: correlationId, value: JSON.stringify(reply), headers: { 'correlation-id': correlationId } }],
        });
      },
    });
    await withDeadline(joined, 30_000, `Kafka command consumer for ${service}`);
    this.servers.push(consumer);
  }

  async close(): Promise<void> {
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    await Promise.allSettled(this.servers.map((consumer) => consumer.disconnect()));
    if (this.replyConsumer) {
      const consumer = await this.replyConsumer.catch(() => undefined);
      await consumer?.disconnect().catch(() => undefined);
      // Reply topics are per process: remove ours so they do not pile up.
      await this.admin.deleteTopics({ topics: [this.replyTopic] }).catch(() => undefined);
    }
    if (this.connected) await Promise.allSettled([this.producer.disconnect(), this.admin.disconnect()]);
  }
}
