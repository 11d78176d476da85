import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Writable } from 'node:stream';
import { CliError, checkSelection, oneLine, type EventSelection } from '@paygate/analytics';
import type { Env } from '@paygate/config';

/** What a command may touch: tests pass their own streams, environment and signal. */
export interface CliIo {
  env: Env;
  stdout: Writable;
  stderr: Writable;
  /** Aborted on SIGINT/SIGTERM: a long command stops after the event in hand and reports where. */
  signal: AbortSignal;
}

export interface Command {
  /** The words that name it: `events export`. */
  name: string;
  summary: string;
  usage: string;
  /** The exit code. Throws CliError for a refusal. */
  run(args: string[], io: CliIo): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * `args` parsed against `options`; anything else (unknown option, stray argument, missing value) is one CliError line.
 */
export function parseOptions<T extends Options>(command: string, args: string[], options: T) {
  try {
    return parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new CliError(
      `${command}: ${oneLine(error).replace(/\. (To specify a positional argument|This command does not take positional arguments).*$/, '')} (see paygate ${command} --help)`,
    );
  }
}

/** An ISO 8601 instant, or a CliError naming the option. */
function instantOption(option: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const instant = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(instant.getTime()))
    throw new CliError(`${option} ${JSON.stringify(value)} is not an ISO 8601 time (such as 2025-06-01T00:00:00Z)`);
  return instant;
}

/** A positive whole number, or a CliError naming the option. */
export function countOption(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new CliError(`${option} ${JSON.stringify(value)} is not a positive whole number`);
  return Number(value);
}

/** Repeatable options also take comma-separated lists. */
export function listOption(values: string[] | undefined): string[] | undefined {
  const list = values
    ?.flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
  return list?.length ? list : undefined;
}

/** The options that select events: `events export` and `events replay` take the same ones. */
export const SELECTION_OPTIONS = {
  'stream-prefix': { type: 'string', multiple: true },
  type: { type: 'string', multiple: true },
  merchant: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  after: { type: 'string' },
  through: { type: 'string' },
  limit: { type: 'string' },
} as const satisfies Options;

interface SelectionValues {
  'stream-prefix'?: string[];
  type?: string[];
  merchant?: string;
  since?: string;
  until?: string;
  after?: string;
  through?: string;
  limit?: string;
}

/** The events the selection options name, or a CliError for a value out of shape or a selection that cannot match. */
export function selectionOption(values: SelectionValues): EventSelection {
  const selection: EventSelection = {
    streamPrefixes: listOption(values['stream-prefix']),
    types: listOption(values.type),
    merchantId: values.merchant,
    since: instantOption('--since', values.since),
    until: instantOption('--until', values.until),
    after: values.after,
    through: values.through,
    limit: countOption('--limit', values.limit),
  };
  checkSelection(selection);
  return selection;
}
