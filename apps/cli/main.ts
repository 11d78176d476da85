#!/usr/bin/env node
import 'reflect-metadata';
import { CliError, oneLine } from '@paygate/analytics';
import type { CliIo, Command } from './command';
import { eventsExport } from './events-export';
import { eventsReplay } from './events-replay';
import { eventsSchema } from './events-schema';
import { listenCommand } from './listen';
import { migrateCommand } from './migrate';
import { openapiCommand } from './openapi';
import { projectionsRebuild } from './projections-rebuild';
import { triggerCommand } from './trigger';

/** Every subcommand, one file each. */
const COMMANDS: Command[] = [
  eventsExport,
  eventsReplay,
  eventsSchema,
  projectionsRebuild,
  migrateCommand,
  openapiCommand,
  listenCommand,
  triggerCommand,
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    'Usage: paygate <command> [options]   (paygate <command> --help for its options)',
    '',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
  ].join('\n');
}

/**
 * The `paygate` command line: finds the subcommand named by the first words of `argv` and runs
 * it. Every refusal or failure is one line on stderr, `paygate: …`, and a non-zero exit code.
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
    io.stdout.write(usage() + '\n');
    return argv.length === 0 ? 2 : 0;
  }
  const command = COMMANDS.find((candidate) => {
    const words = candidate.name.split(' ');
    return words.every((word, index) => argv[index] === word);
  });
  try {
    if (!command)
      throw new CliError(
        `unknown command "${argv
          .filter((word) => !word.startsWith('-'))
          .slice(0, 2)
          .join(' ')}" (paygate --help lists them)`,
      );
    return await command.run(argv.slice(command.name.split(' ').length), io);
  } catch (error) {
    io.stderr.write(`paygate: ${oneLine(error)}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

if (require.main === module) {
  const interrupt = new AbortController();
  // The first signal asks for a clean stop (the command reports where to resume); a second one ends the process.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupt.signal.aborted) process.exit(130);
      interrupt.abort();
    });
  }
  // A parent that goes away without passing its signal on (a shell between npx and this process,
  // killed by SIGTERM) would leave this running unseen: stop as on ^C once this is orphaned.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent && !interrupt.signal.aborted) interrupt.abort();
  }, 500).unref();
  void main(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    signal: interrupt.signal,
  }).then((code) => {
    process.exitCode = code;
  });
}
