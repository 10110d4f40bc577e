/**
 * The checks of `new RestApplication(options)` that take more than a line: a misspelt value is a
 * setup error at construction, never a silently ignored option.
 */
import { SetupError } from '../errors.js';

/** `value` when `allowed` lists it (or it is undefined); an `INVALID_OPTION` naming them otherwise. */
export function choice<T>(name: string, value: unknown, allowed: readonly T[]): T | undefined {
  if (value === undefined || allowed.includes(value as T)) return value as T | undefined;
  const list = allowed.map((item) => JSON.stringify(item)).join(' or ');
  throw new SetupError('INVALID_OPTION', `${name} must be ${list}, got ${JSON.stringify(value)}`);
}

/**
 * Refuses option names `allowed` does not list, naming the ones it does: a misspelt name
 * (`authorisation`, `origins`) would otherwise leave its option at the default, which for a
 * security option fails open. `what` says where the options were given. The error is a
 * `SetupError` `INVALID_OPTION` unless `error` makes the one its caller throws for its other
 * options (a static router's, `sse()`'s). Called where the options are given (registration,
 * construction, a handler's `sse()` call), with the names from a list kept next to the options'
 * type.
 */
export function knownOptions(
  what: string,
  options: unknown,
  allowed: readonly string[],
  error?: (message: string) => Error,
): void {
  if (options === undefined || options === null || typeof options !== 'object') return;
  for (const name of Object.keys(options)) {
    if (allowed.includes(name)) continue;
    const message = `${what}: unknown option ${JSON.stringify(name)}; the options are ${allowed.join(', ')}`;
    throw error ? error(message) : new SetupError('INVALID_OPTION', message);
  }
}

/** A boolean option: `true`, `false` or not given (`false`); anything else is a mistake. */
export function booleanOption(what: string, value: unknown): boolean {
  if (value === undefined || typeof value === 'boolean') return value === true;
  throw new SetupError(
    'INVALID_OPTION',
    `${what} must be true or false, got ${JSON.stringify(value)}`,
  );
}

/** Whether `renderers: 'json'` leaves JSON as the only built-in representation. */
export function jsonOnlyOption(value: unknown): boolean {
  return choice('renderers', value, ['builtin', 'json']) === 'json';
}

/** Whether `etag: 'auto'` gives buffered GET answers a weak ETag from their body. */
export function autoEtagOption(value: unknown): boolean {
  return choice('etag', value, ['auto', false]) === 'auto';
}

/**
 * Whether `value` is a delay a timer can hold: given more than 2^31 - 1 ms, or no number,
 * `setTimeout` fires after 1 ms instead (with a warning on Node). `TIMER_DELAY` says so in an
 * error message.
 */
export function isTimerDelay(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && value < 2 ** 31;
}
export const TIMER_DELAY = 'a number of milliseconds > 0 and below 2^31 (about 24.8 days)';

/** `requestTimeout`: a number of milliseconds > 0, or none. */
export function requestTimeoutOption(value: unknown): number | undefined {
  if (value === undefined || isTimerDelay(value)) return value;
  throw new SetupError(
    'INVALID_OPTION',
    `requestTimeout must be ${TIMER_DELAY}, got ${String(value)}`,
  );
}

/** `bodyLimit`: the largest body read, in bytes; 1 MiB by default. */
export function bodyLimitOption(value: number | undefined): number {
  const limit = value ?? 1024 * 1024;
  if (!(limit >= 0)) throw new SetupError('INVALID_OPTION', 'bodyLimit must be a number >= 0');
  return limit;
}

/** `authorization: 'required'`: startup refuses routes no authorization hook guards. */
export function authorizationRequiredOption(value: unknown): boolean {
  const authorization = value ?? 'optional';
  if (authorization !== 'required' && authorization !== 'optional') {
    throw new SetupError('INVALID_OPTION', 'authorization must be "required" or "optional"');
  }
  return authorization === 'required';
}
