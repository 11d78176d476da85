import { CliError, kafkaSecurityFrom, openStores, replayEvents, storeUrlsFrom } from '@paygate/analytics';
import { redactUrl } from '@paygate/config';
import { kafkaConnection, parseKafkaUrl } from '@paygate/messaging';
import { parseOptions, SELECTION_OPTIONS, selectionOption, type Command } from './command';

const USAGE = `Usage: paygate events replay --to kafka[s]://host:port[,host:port] [--topic <topic>] [selection]

Produces the selected events to Kafka again, as the relay does: topic paygate.events.<category>
(the stream prefix without its dash: collection, service-payment, wallet) unless --topic names
one, key = stream name (each stream in order on one partition), value = the recorded event as
JSON, headers event-id and event-type. A replay repeats events with their ids: consumers that
deduplicate by event id, as Paygate's do, take nothing twice. Integration topics
(paygate.integration.*) are never written.

  --to <kafka url>             the brokers (required); kafkas:// for TLS, with KAFKA_TLS_CA_FILE and
                               KAFKA_SASL_* from the environment as the apps read them
  --topic <topic>              every event to this topic instead (created when missing)
  --stream-prefix, --type, --merchant, --since, --until, --after, --through, --limit
                               select events as paygate events export does`;

export const eventsReplay: Command = {
  name: 'events replay',
  summary: 'produce a range of events to Kafka again, keyed and ordered as the relay does',
  usage: USAGE,
  async run(args, io) {
    const options = parseOptions('events replay', args, {
      to: { type: 'string' },
      topic: { type: 'string' },
      ...SELECTION_OPTIONS,
    });
    if (options.help) return (io.stdout.write(USAGE + '\n'), 0);
    if (!options.to) throw new CliError('events replay needs --to kafka://host:port');
    try {
      parseKafkaUrl(options.to);
    } catch {
      throw new CliError(
        `--to ${JSON.stringify(redactUrl(options.to))} is not a Kafka URL (kafka://host:port[,host:port] or kafkas://…)`,
      );
    }
    const kafka = kafkaSecurityFrom(io.env);
    try {
      kafkaConnection(options.to, kafka);
    } catch (error) {
      throw new CliError(`--to ${redactUrl(options.to)}: ${(error as Error).message}`);
    }
    if (options.topic !== undefined && !/^[A-Za-z0-9._-]{1,249}$/.test(options.topic))
      throw new CliError(`--topic ${JSON.stringify(options.topic)} is not a Kafka topic name`);
    const selection = selectionOption(options);
    const stores = await openStores(storeUrlsFrom(io.env));
    try {
      const result = await replayEvents(stores.events, selection, options.to, {
        topic: options.topic,
        signal: io.signal,
        kafka,
      });
      const resume = result.lastPosition
        ? `, last position ${result.lastPosition} (continue with --after ${result.lastPosition})`
        : '';
      io.stderr.write(
        `paygate: ${result.interrupted ? 'interrupted; ' : ''}${result.replayed} events replayed to ${result.topics.join(', ') || 'no topic'}${resume}\n`,
      );
      return result.interrupted ? 130 : 0;
    } finally {
      await stores.close();
    }
  },
};
