import { existsSync } from 'node:fs';
import {
  CliError,
  EXPORT_FORMATS,
  exportEvents,
  openSink,
  openStores,
  storeUrlsFrom,
  type ExportFormat,
} from '@paygate/analytics';
import { countOption, parseOptions, SELECTION_OPTIONS, selectionOption, type Command } from './command';

const USAGE = `Usage: paygate events export [options]

Writes events in global order, one per line or row: position, stream, type, version, time,
id, revision, data, metadata. Reads STORE_URL (and EVENT_STORE_URL when set).

  --format jsonl|csv|parquet   default jsonl
  --output <file>              a new file (required for parquet); default stdout
  --stream-prefix <prefix>     streams starting with it (repeatable, or comma-separated)
  --type <type>                events of this type (repeatable, or comma-separated)
  --merchant <id>              events of this merchant's streams
  --since <time>               recorded at or after this ISO 8601 time
  --until <time>               recorded before this ISO 8601 time
  --after <position>           after this global position (resume an export here)
  --through <position>         up to and including this global position
  --limit <n>                  at most n events
  --progress-every <n>         progress line on stderr every n events (default 10000)

The last position written is printed on stderr at the end, after an interruption (Ctrl-C,
SIGTERM) and with every progress line: --after <it> continues with the next event.`;

export const eventsExport: Command = {
  name: 'events export',
  summary: 'export events as JSON Lines, CSV or Parquet',
  usage: USAGE,
  async run(args, io) {
    const options = parseOptions('events export', args, {
      format: { type: 'string', default: 'jsonl' },
      output: { type: 'string', short: 'o' },
      ...SELECTION_OPTIONS,
      'progress-every': { type: 'string' },
    });
    if (options.help) return (io.stdout.write(USAGE + '\n'), 0);
    const format = String(options.format) as ExportFormat;
    if (!EXPORT_FORMATS.includes(format))
      throw new CliError(`--format ${JSON.stringify(format)} is not one of ${EXPORT_FORMATS.join(', ')}`);
    if (format === 'parquet' && !options.output) throw new CliError('--format parquet needs --output <file>');
    if (options.output && existsSync(options.output))
      throw new CliError(`${options.output} exists; give a new file (resume into a second file with --after)`);
    const selection = selectionOption(options);
    const progressEvery = countOption('--progress-every', options['progress-every']);

    const stores = await openStores(storeUrlsFrom(io.env));
    try {
      const sink = await openSink(format, options.output, io.stdout);
      const result = await exportEvents(stores.events, selection, sink, {
        signal: io.signal,
        progressEvery,
        onProgress: ({ exported, lastPosition }) =>
          io.stderr.write(`paygate: ${exported} events exported, last position ${lastPosition}\n`),
      });
      const where = options.output ? ` to ${options.output}` : '';
      const resume = result.lastPosition
        ? `, last position ${result.lastPosition} (continue with --after ${result.lastPosition})`
        : '';
      io.stderr.write(
        `paygate: ${result.interrupted ? 'interrupted; ' : ''}${result.exported} events exported${where}${resume}\n`,
      );
      return result.interrupted ? 130 : 0;
    } finally {
      await stores.close();
    }
  },
};
