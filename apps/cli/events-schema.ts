import { CliError } from '@paygate/analytics';
import { EVENT_SCHEMA_CATALOGUE } from '@paygate/contracts';
import { listOption, parseOptions, type Command } from './command';

const USAGE = `Usage: paygate events schema [--type <type>]

Prints, as one JSON document, the JSON Schema of every event type at every version Paygate
has written: { "events": [{ type, version, current, currentVersion, kind, streamPrefix, schema }] }.
A version that is not current is still read: the owning service upcasts it to the current one.
Needs no store.

  --type <type>   only this event type (repeatable, or comma-separated)`;

export const eventsSchema: Command = {
  name: 'events schema',
  summary: 'print the JSON Schema of every event type and version',
  usage: USAGE,
  async run(args, io) {
    const options = parseOptions('events schema', args, { type: { type: 'string', multiple: true } });
    if (options.help) return io.stdout.write(USAGE + '\n'), 0;
    const types = listOption(options.type);
    const unknown = types?.filter((type) => !EVENT_SCHEMA_CATALOGUE.some((entry) => entry.type === type));
    if (unknown?.length) throw new CliError(`unknown event type ${unknown.map((type) => JSON.stringify(type)).join(', ')} (paygate events schema lists them all)`);
    const events = EVENT_SCHEMA_CATALOGUE.filter((entry) => !types || types.includes(entry.type));
    io.stdout.write(JSON.stringify({ events }, null, 2) + '\n');
    return 0;
  },
};
