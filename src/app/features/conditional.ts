/**
 * Conditional requests (RFC 9110 §13): the preconditions evaluated before a route's handler runs
 * (SPEC §5.7 step 5, from the route's `etag()` / `lastModified()` providers) and on the way out
 * (step 8, from the validators a handler set on its response).
 *
 * A route without providers never reaches this module before its handler: the table compiles
 * `conditional` to `undefined` for it.
 */

import { HttpError } from '../../errors.js';
import { parseHttpDate, toHttpSeconds } from '../../http/date.js';
import { formatEntityTag, strongMatch, weakMatch } from '../../http/etag.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { HTTPMethod } from '../../http/methods.js';
import type { Request } from '../../request.js';
import { Response } from '../../response.js';
import { buildContext, type Getter } from '../inject/getters.js';
import type { RequestState } from '../inject/request-state.js';
import { isThenable } from '../thenable.js';

/** A route's `etag()` or `lastModified()` provider, with its getters compiled. */
export interface ValidatorProvider {
  fn: Function;
  names: readonly string[];
  getters: readonly Getter[];
}

/** What step 5 needs from a route. */
export interface CompiledConditional {
  etag: ValidatorProvider | undefined;
  lastModified: ValidatorProvider | undefined;
  /** The route's 200 would carry `Vary: Accept`, so its 304 must too (RFC 9110 §15.4.5). */
  varyAccept: boolean;
}

/** The validators of the selected representation, as the preconditions see them. */
export interface CurrentValidators {
  /** The entity tag with its quotes (`'"v1"'`, `'W/"v1"'`). */
  etag: string | undefined;
  lastModified: Date | undefined;
  /** Whether a current representation exists (what `If-Match: *` asks). */
  exists: boolean;
}

/** The outcome of RFC 9110 §13.2.2 steps 1 to 4. */
export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

function isSafe(method: string): boolean {
  return method === HTTPMethod.GET || method === HTTPMethod.HEAD;
}

/**
 * A date precondition header, or `undefined` when it must be ignored: not a valid HTTP-date, or
 * more than one member (RFC 9110 §13.1.3, §13.1.4). An IMF-fixdate has a comma of its own, so
 * "more than one member" is counted in field lines and in dates, not in commas.
 */
function dateHeader(request: Request, name: string): Date | undefined {
  const values = request.headers.getAll(name);
  if (values.length !== 1) return undefined;
  return parseHttpDate(values[0]);
}

/**
 * Evaluates the precondition headers of `request` against the selected representation, in the
 * order of RFC 9110 §13.2.2. Range and If-Range (step 5) are left to the way out.
 *
 * @example
 * evaluatePreconditions(request, { etag: '"v2"', lastModified: undefined, exists: true });
 * // 'failed' for a PUT with If-Match: "v1"
 */
export function evaluatePreconditions(
  request: Request,
  current: CurrentValidators,
): PreconditionOutcome {
  const headers = request.headers;
  const safe = isSafe(request.method);
  if (headers.has('if-match')) {
    // Step 1, §13.1.1: `*` holds when a current representation exists; a list holds when one of
    // its tags matches by the strong comparison (a weak tag never does). A malformed list has
    // no tags and therefore fails, which is the safe answer before a state change.
    const tags = request.getIfMatch();
    const holds =
      tags[0] === '*'
        ? current.exists
        : current.etag !== undefined &&
          tags.some((tag) => strongMatch(tag, current.etag as string));
    if (!holds) return 'failed';
  } else if (headers.has('if-unmodified-since')) {
    // Step 2, §13.1.4: ignored when not a valid date or when the resource has no date.
    const since = dateHeader(request, 'if-unmodified-since');
    if (
      since !== undefined &&
      current.lastModified !== undefined &&
      toHttpSeconds(current.lastModified) > toHttpSeconds(since)
    ) {
      return 'failed';
    }
  }
  if (headers.has('if-none-match')) {
    // Step 3, §13.1.2: `*` fails when a representation exists; a list fails when one of its
    // tags matches by the weak comparison. GET/HEAD then answer 304, other methods 412.
    const tags = request.getIfNoneMatch();
    const matches =
      tags[0] === '*'
        ? current.exists
        : current.etag !== undefined && tags.some((tag) => weakMatch(tag, current.etag as string));
    if (matches) return safe ? 'not-modified' : 'failed';
  } else if (safe && headers.has('if-modified-since')) {
    // Step 4, §13.1.3: GET and HEAD only; dates compared at one-second precision, the finest an
    // HTTP-date carries (SPEC §6).
    const since = dateHeader(request, 'if-modified-since');
    if (
      since !== undefined &&
      current.lastModified !== undefined &&
      toHttpSeconds(current.lastModified) <= toHttpSeconds(since)
    ) {
      return 'not-modified';
    }
  }
  return 'proceed';
}

/** Whether `request` carries any precondition header (a cheap test before the real work). */
export function hasPreconditions(request: Request): boolean {
  const headers = request.headers;
  // Most requests carry no If-* header at all: one pass over the names says so.
  if (!MultiValueHeaders.hasNameStartingWith(headers, 'if-')) return false;
  return (
    headers.has('if-match') ||
    headers.has('if-none-match') ||
    headers.has('if-modified-since') ||
    headers.has('if-unmodified-since')
  );
}

// The validators step 5 computed, kept for the way out (they are set on the final response of a
// GET or HEAD). A WeakMap keeps RequestState free of a field only some routes use.
const computed = new WeakMap<RequestState, CurrentValidators>();

/** The validators step 5 computed for this request, if the route has providers. */
export function providedValidators(state: RequestState | undefined): CurrentValidators | undefined {
  return state === undefined ? undefined : computed.get(state);
}

function callProvider(provider: ValidatorProvider, state: RequestState): unknown {
  const context = buildContext(provider.names, provider.getters, state);
  return isThenable(context)
    ? Promise.resolve(context).then((resolved) => provider.fn(resolved))
    : provider.fn(context);
}

function toEntityTag(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new TypeError(`An etag() provider must return a string, got ${typeof value}`);
  }
  return formatEntityTag(value);
}

function toDate(value: unknown): Date | undefined {
  if (value === undefined || value === null) return undefined;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new TypeError('A lastModified() provider must return a valid Date');
  }
  return value;
}

/**
 * SPEC §5.7 step 5: runs the route's providers, then evaluates the preconditions. Returns the
 * 304 to send instead of running the handler, or `undefined` to go on; a failed precondition
 * throws a 412 before the handler (and so before any side effect) runs.
 */
export async function checkRoutePreconditions(
  conditional: CompiledConditional,
  state: RequestState,
): Promise<Response | undefined> {
  const request = state.request;
  // RFC 9110 §13.2.1: preconditions do not apply to OPTIONS.
  if (request.method === HTTPMethod.OPTIONS) return undefined;
  let etagValue: unknown;
  let dateValue: unknown;
  if (conditional.etag !== undefined) {
    etagValue = callProvider(conditional.etag, state);
    if (isThenable(etagValue)) etagValue = await etagValue;
  }
  if (conditional.lastModified !== undefined) {
    dateValue = callProvider(conditional.lastModified, state);
    if (isThenable(dateValue)) dateValue = await dateValue;
  }
  const etag = toEntityTag(etagValue);
  const lastModified = toDate(dateValue);
  // A provider that returns nothing says the resource has no current representation: If-Match
  // fails and `If-None-Match: *` (create only if absent) passes.
  const current: CurrentValidators = {
    etag,
    lastModified,
    exists: etag !== undefined || lastModified !== undefined,
  };
  computed.set(state, current);
  const outcome = evaluatePreconditions(request, current);
  if (outcome === 'proceed') return undefined;
  if (outcome === 'failed') {
    throw new HttpError(412, 'Precondition Failed: the resource does not match the request');
  }
  return notModifiedResponse(current, conditional.varyAccept);
}

/**
 * A 304 built before the handler: the validators, and `Vary` as the 200 would have it (RFC 9110
 * §15.4.5). Last-Modified is sent only without an ETag, as §15.4.5 suggests.
 */
function notModifiedResponse(current: CurrentValidators, varyAccept: boolean): Response {
  const response = new Response(304);
  if (current.etag !== undefined) response.setEtag(current.etag);
  else if (current.lastModified !== undefined) response.setLastModified(current.lastModified);
  if (varyAccept) response.headers.add('Vary', 'Accept');
  return response;
}

/**
 * On the way out of a GET or HEAD: puts the validators step 5 computed on a successful response
 * that has none of its own. Unsafe methods are left alone: their handler changed the resource,
 * so the validators computed before it are stale (RFC 9110 §9.3.4 forbids them on a PUT).
 */
export function addProvidedValidators(response: Response, state: RequestState | undefined): void {
  const current = providedValidators(state);
  if (current === undefined) return;
  const status = response.statusCode;
  if (status < 200 || status > 299 || !isSafe((state as RequestState).request.method)) return;
  const headers = response.headers;
  if (current.etag !== undefined && response.etag === undefined && !headers.has('etag')) {
    response.setEtag(current.etag);
  }
  if (
    current.lastModified !== undefined &&
    response.lastModified === undefined &&
    !headers.has('last-modified')
  ) {
    response.setLastModified(current.lastModified);
  }
}
