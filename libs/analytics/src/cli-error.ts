/**
 * A refusal the CLI prints as one line before it exits: exit code 2 when the command line was
 * wrong (unknown option, bad range), 1 when the command was fine but a store or broker failed.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
  ) {
    super(message);
  }
}

/** The one line an error becomes: the first line of its message, never a stack. */
export function oneLine(error: unknown): string {
  // Not `instanceof Error`: errors from another realm (node:util's under jest) fail that test.
  const message =
    typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
  return (
    message
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? 'failed'
  );
}
