/**
 * Conditional requests (RFC 9110 §13) in the pipeline: the route's `etag()` / `lastModified()`
 * providers run before its handler, and the validators a handler set on its response are judged
 * on the way out. The judging itself is src/http/conditional.ts, shared with the static router.
 *
 * A route without providers never reaches this module before its handler: the table compiles
 * `conditional` to `undefined` for it.
 */

import { HttpError } from '../../errors.js';
import { discardBody } from '../../http/bytes.js';
import {
  evaluatePreconditions,
  hasPreconditions,
  type Validators,
} from '../../http/conditional.js';
import { parseHttpDate } from '../../http/date.js';
import { formatEntityTag } from '../../http/etag.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { HTTPMethod } from '../../http/methods.js';
import { addVary } from '../../http/vary.js';
import type { Request } from '../../request.js';
import { Response } from '../../response.js';
import { buildContext, type Getter } from '../inject/getters.js';
import type { RequestState } from '../inject/request-state.js';
import { isPending, isThenable } from '../thenable.js';

/** A route's `etag()` or `lastModified()` provider, with its getters compiled. */
export interface ValidatorProvider {
  fn: Function;
  names: readonly string[];
  getters: readonly Getter[];
}

/** What the pipeline needs from a route to evaluate its preconditions before the handler. */
export interface CompiledConditional {
  etag: ValidatorProvider | undefined;
  lastModified: ValidatorProvider | undefined;
  /** The route's 200 would carry `Vary: Accept`, so its 304 must too (RFC 9110 §15.4.5). */
  varyAccept: boolean;
}

/** The validators a route's providers computed: `exists` is false when both gave nothing. */
type ProvidedValidators = Validators & { exists: boolean };

function isSafe(method: string): boolean {
  return method === HTTPMethod.GET || method === HTTPMethod.HEAD;
}

/**
 * The validators the providers computed for this request, if the route has providers: kept for
 * the way out, where they are set on the final response of a GET or HEAD.
 */
function providedValidators(state: RequestState | undefined): ProvidedValidators | undefined {
  return state?.validators;
}

function callProvider(provider: ValidatorProvider, state: RequestState): unknown {
  const context = buildContext(provider.names, provider.getters, state);
  return isPending(context)
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
 * Step 5 of the pipeline (docs/architecture.md): runs the route's providers, then evaluates the
 * preconditions (RFC 9110 §13.2.2). Returns the 304 to send instead of running the handler, or
 * `undefined` to go on; a failed precondition throws a 412 before the handler (and so before any
 * side effect) runs.
 */
export function checkRoutePreconditions(
  conditional: CompiledConditional,
  state: RequestState,
): Response | undefined | Promise<Response | undefined> {
  // RFC 9110 §13.2.1: preconditions do not apply to OPTIONS.
  if (state.request.method === HTTPMethod.OPTIONS) return undefined;
  const etag = conditional.etag === undefined ? undefined : callProvider(conditional.etag, state);
  // Synchronous providers (the usual kind) keep the rest of the pipeline synchronous. With the
  // If-* skip and one Vary line: notes GET own overhead 58,609 → 36,832 (bench/RESULTS.md).
  if (isThenable(etag))
    return Promise.resolve(etag).then((tag) => withDate(conditional, state, tag));
  return withDate(conditional, state, etag);
}

function withDate(
  conditional: CompiledConditional,
  state: RequestState,
  etagValue: unknown,
): Response | undefined | Promise<Response | undefined> {
  const provider = conditional.lastModified;
  const date = provider === undefined ? undefined : callProvider(provider, state);
  if (isThenable(date)) {
    return Promise.resolve(date).then((value) => decide(conditional, state, etagValue, value));
  }
  return decide(conditional, state, etagValue, date);
}

function decide(
  conditional: CompiledConditional,
  state: RequestState,
  etagValue: unknown,
  dateValue: unknown,
): Response | undefined {
  const etag = toEntityTag(etagValue);
  const lastModified = toDate(dateValue);
  // A provider that returns nothing says the resource has no current representation: If-Match
  // fails and `If-None-Match: *` (create only if absent) passes.
  const current: ProvidedValidators = {
    etag,
    lastModified,
    exists: etag !== undefined || lastModified !== undefined,
  };
  state.validators = current;
  // Most requests carry no If-* header: nothing to evaluate.
  if (!hasPreconditions(state.request)) return undefined;
  const outcome = evaluatePreconditions(state.request, current);
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
function notModifiedResponse(current: Validators, varyAccept: boolean): Response {
  const response = new Response(304);
  if (current.etag !== undefined) response.setEtag(current.etag);
  else if (current.lastModified !== undefined) response.setLastModified(current.lastModified);
  if (varyAccept) response.headers.add('Vary', 'Accept');
  return response;
}

/**
 * On the way out of a GET or HEAD: puts the validators the providers computed on a successful
 * response that has none of its own. Unsafe methods are left alone: their handler changed the
 * resource, so the validators computed before it are stale (RFC 9110 §9.3.4 forbids them on a
 * PUT).
 */
export function addProvidedValidators(
  conditional: CompiledConditional,
  response: Response,
  state: RequestState | undefined,
): void {
  const current = providedValidators(state);
  if (current === undefined) return;
  const status = response.statusCode;
  if (status < 200 || status > 299 || !isSafe((state as RequestState).request.method)) return;
  const headers = response.headers;
  // The 304 the providers answer before the handler carries Vary: Accept, so the 200 it stands
  // for must too (RFC 9110 §15.4.5), also when the handler's own Response or bytes skipped the
  // renderers: its validators were computed after negotiation. A rendered 200 has it already.
  if (conditional.varyAccept && MultiValueHeaders.getLower(headers, 'vary') !== 'Accept') {
    addVary(headers, 'Accept');
  }
  if (current.etag !== undefined && response.etag === undefined && !headers.has('etag')) {
    // Formatted by toEntityTag already: set as it is (notes GET 83,376 → 81,582 instructions).
    response.etag = current.etag;
    MultiValueHeaders.setTrusted(headers, 'ETag', 'etag', current.etag);
  }
  if (
    current.lastModified !== undefined &&
    response.lastModified === undefined &&
    !headers.has('last-modified')
  ) {
    response.setLastModified(current.lastModified);
  }
}

/**
 * RFC 9110 §13.2.2 on the way out, for the validators a handler set on a 200 to GET or HEAD:
 * turns the response into a 304 and returns true when the client's copy is current; throws a
 * 412 when If-Match / If-Unmodified-Since fail. The handler of a safe method changed nothing, so
 * answering after it ran is still correct; unsafe methods are checked before their handler,
 * from the route's providers ({@link checkRoutePreconditions}).
 */
export function checkResponsePreconditions(request: Request, response: Response): boolean {
  if (response.statusCode !== 200 || !isSafe(request.method)) return false;
  // Requests without an If-* header (nearly all) stop here, before anything is allocated.
  if (!hasPreconditions(request)) return false;
  const headers = response.headers;
  const etag = headers.get('etag');
  const hasDate = response.lastModified !== undefined || headers.has('last-modified');
  if (etag === undefined && !hasDate) return false;
  const lastModified = response.lastModified ?? parseHttpDate(headers.get('last-modified'));
  const outcome = evaluatePreconditions(request, { etag, lastModified });
  if (outcome === 'proceed') return false;
  discardBody(response.body);
  response.body = undefined;
  if (outcome === 'failed') {
    throw new HttpError(412, 'Precondition Failed: the resource does not match the request');
  }
  toNotModified(response);
  return true;
}

// RFC 9110 §15.4.5: a 304 carries the headers a 200 would have had among these.
const KEPT_ON_304 = new Set([
  'cache-control',
  'content-location',
  'date',
  'etag',
  'expires',
  'vary',
]);

function toNotModified(response: Response): void {
  response.statusCode = 304;
  for (const name of [...response.headers.names()]) {
    const lower = name.toLowerCase();
    if (
      (lower.startsWith('content-') || lower === 'transfer-encoding') &&
      !KEPT_ON_304.has(lower)
    ) {
      response.headers.delete(name);
    }
  }
}
