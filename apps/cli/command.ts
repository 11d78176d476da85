import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Writable } from 'node:stream';
import { CliError, oneLine } from '@paygate/analytics';
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

/** `args` parsed against `options`; anything else (unknown option, stray argument, missing value) is one CliError line. */
export function parseOptions<T extends Options>(command: string, args: string[], options: T) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new CliError(
      `${command}: ${oneLine(error).replace(/\. (To specify a positional argument|This command does not take positional arguments).*$/, '')} (see paygate ${command} --help)`,
    );
  }
}

/** An ISO 8601 instant, or a CliError naming the option. */
export function instantOption(option: string, value: string | undefined): Date | undefined {
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
