import { CliError } from '@paygate/analytics';
import { COLLECTION_EVENT_CATALOGUE } from '@paygate/collections-domain';
import { INTEGRATION_EVENT_CATALOGUE } from '@paygate/contracts';
import { DISBURSEMENTS_EVENT_CATALOGUE } from '@paygate/disbursements-domain';
import { PAYMENTS_EVENT_CATALOGUE } from '@paygate/payments-domain';
import { listOption, parseOptions, type Command } from './command';

const USAGE = `Usage: paygate events schema [--type <type>]

Prints, as one JSON document, the JSON Schema of every event type at every version Paygate
has written: { "events": [{ type, version, current, currentVersion, kind, streamPrefix, schema }] }.
A version that is not current is still read: the owning service upcasts it to the current one.
Needs no store.

  --type <type>   only this event type (repeatable, or comma-separated)`;

/**
 * Every event type Paygate writes, at every version it ever wrote: each context's domain events and the integration
 * events.
 */
const EVENT_SCHEMA_CATALOGUE = [
  ...COLLECTION_EVENT_CATALOGUE,
  ...PAYMENTS_EVENT_CATALOGUE,
  ...DISBURSEMENTS_EVENT_CATALOGUE,
  ...INTEGRATION_EVENT_CATALOGUE,
];

export const eventsSchema: Command = {
  name: 'events schema',
  summary: 'print the JSON Schema of every event type and version',
  usage: USAGE,
  async run(args, io) {
    const options = parseOptions('events schema', args, { type: { type: 'string', multiple: true } });
    if (options.help) return (io.stdout.write(USAGE + '\n'), 0);
    const types = listOption(options.type);
    const unknown = types?.filter((type) => !EVENT_SCHEMA_CATALOGUE.some((entry) => entry.type === type));
    if (unknown?.length)
      throw new CliError(
        `unknown event type ${unknown.map((type) => JSON.stringify(type)).join(', ')} (paygate events schema lists them all)`,
      );
    const events = EVENT_SCHEMA_CATALOGUE.filter((entry) => !types || types.includes(entry.type));
    io.stdout.write(JSON.stringify({ events }, null, 2) + '\n');
    return 0;
  },
};
