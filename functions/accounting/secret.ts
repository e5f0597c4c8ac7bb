/**
 * `Secret` holds a credential so it cannot leak by accident: `toString`, `toJSON`, `util.inspect`
 * and template literals all print `[redacted]`; only `reveal()` returns the value, at the one place
 * that puts it on the wire. Each value is registered with the log redactor.
 */
import { inspect } from 'node:util';
import { REDACTED, registerSecretValue } from '../shared/logger.js';

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    registerSecretValue(value);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }
}
