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

/**
 * Never print credentials, even in an error about the URL that holds them: the user info, and a
 * password given as a parameter (node-postgres reads `?password=`).
 */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^/@]*)@/, '//***@').replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***');
}
