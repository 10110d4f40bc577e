/**
 * What one request's injection shares: the request, its path parameters and the values computed
 * for it. Two concurrent requests never share a state.
 */
import type { MediaType } from '../../http/media-type.js';
import type { Request } from '../../request.js';
import type { Logger } from '../logger.js';

/** Everything one request's getters share. */
export interface RequestState {
  request: Request;
  /** The values of the matched route's path parameters, in the order of its template. */
  paramValues: readonly string[];
  /**
   * Request-scoped values by name, created on first use, and the failures of session values by
   * their binding (remembered for the rest of the request).
   */
  cache: Map<unknown, unknown> | undefined;
  /** `result` for renderers, `error` for error handlers. */
  extra: Record<string, unknown> | undefined;
  log: Logger | undefined;
  /** The controller behind the `signal` injectable, made on first use. */
  abort: AbortController | undefined;
  /**
   * What the route's `etag()` / `lastModified()` providers computed, kept for the way out
   * (app/features/conditional.ts); `exists` is false when both gave nothing.
   */
  validators: { etag?: string; lastModified?: Date; exists: boolean } | undefined;
  /** The representation content negotiation chose for the route's answer (`mediaType`). */
  chosen: MediaType | undefined;
}

/** How one injected name gets its value for a request: now, or as a promise. */
export type Getter = (state: RequestState) => unknown;

/** The path parameter values of a request that matched no route (or a route without any). */
export const NO_PARAM_VALUES: readonly string[] = Object.freeze([]);

/** A fresh state for `request`; `paramValues` are its route's path parameter values. */
export function newRequestState(
  request: Request,
  paramValues: readonly string[] = NO_PARAM_VALUES,
): RequestState {
  return {
    request,
    paramValues,
    cache: undefined,
    extra: undefined,
    log: undefined,
    abort: undefined,
    validators: undefined,
    chosen: undefined,
  };
}

/**
 * The request's Content-Security-Policy nonce: 128 random bits, made on first use and the same
 * for every reader in the request (the `cspNonce` name and the CSP header agree).
 */
export function requestNonce(state: RequestState): string {
  state.cache ??= new Map();
  let nonce = state.cache.get('cspNonce') as string | undefined;
  if (nonce === undefined) {
    const bytes = new Uint8Array(16);
    globalThis.crypto.getRandomValues(bytes);
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    nonce = btoa(binary);
    state.cache.set('cspNonce', nonce);
  }
  return nonce;
}
