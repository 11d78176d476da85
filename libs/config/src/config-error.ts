/**
 * A bad configuration value: stops the start with one line naming the variable and what it
 * expected. Never built from a secret's value (see Secret).
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`invalid configuration: ${variable} ${problem.replace(/\s*\n\s*/g, ' ')}`);
  }
}

/** Never print credentials, even in an error about the URL that holds them. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^/@]*)@/, '//***@');
}
