/**
 * The body names (docs/application.md, "Request bodies"): `jsonBody`, `formBody`, and
 * `parsedBody`, the value of the parser `accepts()` registered for the request's Content-Type.
 * A body none of them takes is 415; the pipeline adds the route's `Accept` to every 415
 * (RFC 9110 §15.5.16).
 */
import { HttpError, SetupError } from '../../errors.js';
import { type CharsetDecoder, charsetDecoder } from '../../http/charset.js';
import { DataRecord } from '../../http/data-record.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { isJsonMediaType, mediaTypeEssence, parseMediaType } from '../../http/media-type.js';
import { percentDecodeBytes } from '../../http/percent.js';
import { bodyRead, jsonBodyNow, type Request } from '../../request.js';
import { mayHaveContent } from '../../request-body.js';
import type { Injectable } from './handler-parameters.js';
import type { Getter, RequestState } from './request-state.js';

export const JSON_MEDIA_TYPE = 'application/json';
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

function unsupported(type: string | undefined, expected: string): HttpError {
  return new HttpError(
    415,
    type === undefined
      ? `Request body needs Content-Type: ${expected}`
      : `Unsupported Content-Type ${JSON.stringify(type)}; expected ${expected}`,
  );
}

/**
 * A body sent in a content coding (`Content-Encoding: gzip`, RFC 9110 §8.4) is 415: the
 * parsers read unencoded bytes, and inflating a client's body would let a small request grow
 * without bound. `Accept-Encoding: identity` on the answer says what is taken (§15.5.16).
 */
export function refuseContentCoding(request: Request): void {
  const coding = MultiValueHeaders.getList(request.headers, 'content-encoding')?.trim();
  if (coding === undefined || coding === '' || coding.toLowerCase() === 'identity') return;
  throw new HttpError(
    415,
    `Unsupported Content-Encoding ${JSON.stringify(coding)}; send the body unencoded`,
    undefined,
    { 'Accept-Encoding': 'identity' },
  );
}

/**
 * JSON or any `+json` type (RFC 6839 §3.1); no Content-Type at all is 415 too. The value itself
 * when the body is already in memory and UTF-8, else a promise of it.
 */
export function readJsonBody(
  request: Request,
  type = MultiValueHeaders.getLower(request.headers, 'content-type'),
): unknown {
  refuseContentCoding(request);
  // The common case is recognised without parsing the media type.
  if (type === JSON_MEDIA_TYPE) return jsonBodyNow(request);
  if (type === undefined || !isJsonMediaType(mediaTypeEssence(type))) {
    throw unsupported(type, JSON_MEDIA_TYPE);
  }
  // Another declared charset needs the text decoded first (an unknown one is 415 there).
  return charsetDecoder(type) === undefined ? jsonBodyNow(request) : request.json();
}

/**
 * What a `jsonBody` validator checks: `undefined` for a request without content and without a
 * Content-Type, so the validator decides whether the body is required (`z.object()` answers
 * 422, `z.object().optional()` hands the handler `undefined`). A route without a validator has
 * nothing to decide for it, so there such a request stays a 415 (`readJsonBody`).
 */
export function readValidatedJsonBody(request: Request): unknown {
  const type = MultiValueHeaders.getLower(request.headers, 'content-type');
  if (type !== undefined) return readJsonBody(request, type);
  if (!mayHaveContent(request.body)) return undefined;
  // Framing that could carry content (a chunked body, a Fetch runtime's stream without a
  // length) may still carry none: zero bytes are no content either, the same on every adapter.
  return request.bytes().then((bytes) => {
    if (bytes.length === 0) return undefined;
    throw unsupported(undefined, JSON_MEDIA_TYPE);
  });
}

/**
 * Whether `request` carries an `application/json` body (without parameters) still to be read:
 * a Node or Fetch request's stream, not a Lambda event's body, which is in memory already.
 */
export function jsonBodyUnread(request: Request): boolean {
  const body = request.body;
  return (
    body !== undefined &&
    typeof body !== 'string' &&
    !(body instanceof Uint8Array) &&
    bodyRead(request) === undefined &&
    MultiValueHeaders.getLower(request.headers, 'content-type') === JSON_MEDIA_TYPE &&
    MultiValueHeaders.getLower(request.headers, 'content-encoding') === undefined
  );
}

/** `application/x-www-form-urlencoded`, first value per name, in the declared charset. */
export function readFormBody(request: Request): Promise<Record<string, string>> {
  try {
    refuseContentCoding(request);
  } catch (error) {
    return Promise.reject(error);
  }
  const type = request.headers.get('content-type');
  if (type === undefined || mediaTypeEssence(type) !== FORM_MEDIA_TYPE) {
    // `formBody` reads a multipart body's fields too (uploads/inject.ts): both are taken.
    return Promise.reject(unsupported(type, `${FORM_MEDIA_TYPE} or multipart/form-data`));
  }
  const declared = charsetDecoder(type);
  if (declared === null) {
    return Promise.reject(new HttpError(415, `Unsupported charset in ${type}`));
  }
  const decoder = declared === undefined || declared.encoding === 'utf-8' ? FORM_UTF8 : declared;
  return request.bytes().then((bytes) => formFields(bytes, decoder));
}

// A form body without a charset is UTF-8, strictly (docs/application.md, "Request bodies").
// Each name and value is decoded on its own and keeps a leading U+FEFF, as the URL Standard's
// urlencoded parser decodes them ("UTF-8 decode without BOM") and as a query's are read.
const FORM_UTF8: CharsetDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The WHATWG URL Standard's urlencoded parser with an encoding: the pairs are split on bytes,
 * and percent-escapes are bytes in the declared charset, not UTF-8.
 */
function formFields(bytes: Uint8Array, decoder: CharsetDecoder): Record<string, string> {
  const out = new DataRecord<string>();
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x26) continue;
    const pair = bytes.subarray(start, i);
    start = i + 1;
    if (pair.length === 0) continue;
    const eq = pair.indexOf(0x3d);
    const name = percentDecoded(eq === -1 ? pair : pair.subarray(0, eq), decoder);
    if (!Object.hasOwn(out, name)) {
      out[name] = eq === -1 ? '' : percentDecoded(pair.subarray(eq + 1), decoder);
    }
  }
  return out;
}

function percentDecoded(bytes: Uint8Array, decoder: CharsetDecoder): string {
  try {
    return decoder.decode(percentDecodeBytes(bytes, true));
  } catch {
    throw new HttpError(400, `Request body is not valid ${decoder.encoding}`);
  }
}

/** A parser as `accepts()` registered it. */
export interface BodyParser {
  /** As registered, for `Accept`. */
  mediaType: string;
  type: string;
  subtype: string;
  injectable: Injectable;
}

/** A parser of one route, with the getters of the names it injects. */
export interface CompiledParser extends BodyParser {
  getters: readonly Getter[];
}

/** Checks `mediaType` and describes the parser. */
function bodyParser(mediaType: string, injectable: Injectable): BodyParser {
  const parsed = typeof mediaType === 'string' ? parseMediaType(mediaType) : undefined;
  if (parsed === undefined || (parsed.type === '*' && parsed.subtype !== '*')) {
    throw new SetupError(
      'INVALID_OPTION',
      `accepts() needs a media type such as "text/csv", got ${JSON.stringify(mediaType)}`,
    );
  }
  if (injectable.names.includes('parsedBody')) {
    throw new SetupError('INVALID_HANDLER', `The parser for ${mediaType} cannot inject parsedBody`);
  }
  return { mediaType, type: parsed.type, subtype: parsed.subtype, injectable };
}

/** Registers a parser in `settings.accepts`, replacing one for the same media type. */
export function addParser(
  settings: Record<string, unknown>,
  mediaType: string,
  injectable: Injectable,
): void {
  const parser = bodyParser(mediaType, injectable);
  settings.accepts ??= new Map<string, BodyParser>();
  (settings.accepts as Map<string, BodyParser>).set(`${parser.type}/${parser.subtype}`, parser);
}

/**
 * How closely `parser` fits a request's `type/subtype` (0: not at all). An exact match beats a
 * structured suffix (`application/json` or `application/*+json` for `application/vnd.x+json`,
 * RFC 6838 §4.2.8), which beats `type/*`, which beats `*\/*`.
 */
function closeness(parser: BodyParser, type: string, subtype: string): number {
  if (parser.type === '*') return 1;
  if (parser.type !== type) return 0;
  if (parser.subtype === subtype) return 4;
  const plus = subtype.lastIndexOf('+');
  if (plus !== -1) {
    const suffix = subtype.slice(plus + 1);
    if (parser.subtype === suffix || parser.subtype === `*+${suffix}`) return 3;
  }
  return parser.subtype === '*' ? 2 : 0;
}

/**
 * The `parsedBody` getter of a route whose parsers are `parsers` (innermost registration
 * first: among equally close fits the innermost wins). `run` calls a parser with its injection
 * object. The value is computed once per request.
 */
export function parsedBodyGetter(
  parsers: readonly CompiledParser[],
  run: (parser: CompiledParser, state: RequestState) => unknown,
): Getter {
  return (state) => {
    state.cache ??= new Map();
    if (state.cache.has('parsedBody')) return state.cache.get('parsedBody');
    const header = state.request.headers.get('content-type');
    const essence = mediaTypeEssence(header);
    const slash = essence.indexOf('/');
    const type = essence.slice(0, slash);
    const subtype = essence.slice(slash + 1);
    let best: CompiledParser | undefined;
    let bestFit = 0;
    for (const parser of slash <= 0 ? [] : parsers) {
      const score = closeness(parser, type, subtype);
      if (score > bestFit) {
        best = parser;
        bestFit = score;
      }
    }
    if (best === undefined) {
      throw unsupported(header, parsers.map((parser) => parser.mediaType).join(', ') || 'none');
    }
    const value = run(best, state);
    state.cache.set('parsedBody', value);
    return value;
  };
}
