import { inspect } from 'node:util';

const HIDDEN = '[secret]';

/**
 * A configured secret (MASTER_KEY, ADMIN_TOKEN, provider credentials). Its value is only
 * reachable through reveal(): printing, logging or serialising the configuration shows
 * "[secret]", so a secret cannot reach a log line or an error message by accident.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    Object.freeze(this);
  }

  /** The value, for the one place that uses it (a cipher key, a comparison, an HTTP header). */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return HIDDEN;
  }

  toJSON(): string {
    return HIDDEN;
  }

  [inspect.custom](): string {
    return HIDDEN;
  }
}
