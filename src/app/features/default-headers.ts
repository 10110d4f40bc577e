/**
 * Default headers (docs/http-semantics.md, "Default headers"): headers added to every response the application sends, error
 * responses and 404s included, from a fixed set or from a function that may inject dependencies.
 * A header the response already carries is left as it is: the handler has the last word.
 */

import { SetupError } from '../../errors.js';
import { type HeadersInit, MultiValueHeaders } from '../../http/headers.js';
import type { Response } from '../../response.js';
import { buildContext, type Getter } from '../inject/getters.js';
import type { Injectable } from '../inject/handler-parameters.js';
import type { RequestState } from '../inject/request-state.js';
import { isPending, isThenable } from '../thenable.js';

/** Headers as `app.defaultHeaders()` takes and default header functions return them. */
export type DefaultHeadersInit = Readonly<Record<string, string | number | readonly string[]>>;

/** What `app.defaultHeaders()` registered: fixed headers, or a function to call per response. */
export type DefaultHeadersSource =
  | { kind: 'fixed'; headers: MultiValueHeaders }
  | { kind: 'function'; injectable: Injectable };

/** One `defaultHeaders()` registration, compiled: fixed headers, or a function and its getters. */
export type CompiledDefaultHeaderEntry =
  | { fixed: MultiValueHeaders; fn?: undefined }
  | { fixed?: undefined; fn: Function; names: readonly string[]; getters: readonly Getter[] };

/**
 * The default headers of an application, compiled once per routing table, in registration order:
 * where two registrations name the same header, the first one registered wins.
 */
export interface CompiledDefaultHeaders {
  entries: readonly CompiledDefaultHeaderEntry[];
}

/** Checks fixed headers at registration (names and values, as MultiValueHeaders does). */
export function fixedDefaultHeaders(headers: DefaultHeadersInit): MultiValueHeaders {
  if (headers === null || typeof headers !== 'object') {
    throw new SetupError('INVALID_OPTION', 'defaultHeaders() takes an object or a function');
  }
  try {
    return new MultiValueHeaders(headers as HeadersInit);
  } catch (error) {
    throw new SetupError('INVALID_OPTION', `defaultHeaders: ${(error as Error).message}`);
  }
}

function addMissing(response: Response, headers: MultiValueHeaders): void {
  const target = response.headers;
  headers.forEachName((values, name) => {
    if (!target.has(name)) target.set(name, values);
  });
}

function addReturned(response: Response, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'object') {
    throw new TypeError(`A default headers function must return an object, got ${typeof value}`);
  }
  addMissing(response, new MultiValueHeaders(value as HeadersInit));
}

/**
 * Adds the default headers a response lacks. A promise only when a function (or a dependency it
 * injects) is asynchronous. A function that throws fails the response like a handler would.
 */
export function applyDefaultHeaders(
  compiled: CompiledDefaultHeaders,
  response: Response,
  state: RequestState,
): void | Promise<void> {
  const entries = compiled.entries;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as CompiledDefaultHeaderEntry;
    if (entry.fn === undefined) {
      addMissing(response, entry.fixed);
      continue;
    }
    const { fn } = entry;
    const context = buildContext(entry.names, entry.getters, state);
    const value = isPending(context)
      ? Promise.resolve(context).then((resolved) => fn(resolved))
      : fn(context);
    if (isThenable(value)) return finishAsync(entries, i, value, response, state);
    addReturned(response, value);
  }
}

async function finishAsync(
  entries: readonly CompiledDefaultHeaderEntry[],
  index: number,
  pending: PromiseLike<unknown>,
  response: Response,
  state: RequestState,
): Promise<void> {
  addReturned(response, await pending);
  for (let i = index + 1; i < entries.length; i++) {
    const entry = entries[i] as CompiledDefaultHeaderEntry;
    if (entry.fn === undefined) {
      addMissing(response, entry.fixed);
      continue;
    }
    const context = await buildContext(entry.names, entry.getters, state);
    addReturned(response, await entry.fn(context));
  }
}
