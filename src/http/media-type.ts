/**
 * Media types and proactive negotiation (RFC 9110 §12.5.1, §8.3.1).
 */
import { DataRecord } from './data-record.js';
import { memoizeHeaderParser } from './memo.js';

/** One media range from an `Accept` header. */
export interface MediaRange {
  type: string;
  subtype: string;
  params: Readonly<Record<string, string>>;
  q: number;
}

/** A parsed media type such as `text/plain; charset=utf-8`. */
export interface MediaType {
  type: string;
  subtype: string;
  params: Readonly<Record<string, string>>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
// Parameter names come from the client: the maps inherit nothing (see data-record.ts).
const EMPTY: Readonly<Record<string, string>> = Object.freeze(new DataRecord<string>());

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}

/**
 * `text` split at `separator` wherever it is not inside a quoted-string (RFC 9110 §5.6.4): in
 * `text/html;x="a,b;q=0"` the value of `x` is one value, not the start of another member or
 * parameter. Text without a quote, nearly every header, takes the plain split.
 */
function splitOutsideQuotes(text: string, separator: ',' | ';'): string[] {
  if (!text.includes('"')) return text.split(separator);
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"' && startsValue(text, i)) {
      // An unclosed quote quotes nothing: its member is malformed, and the ones after it are
      // read as they stand rather than taken into it.
      const end = closingQuote(text, i + 1);
      if (end !== -1) i = end;
    } else if (char === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * Whether the quote at `at` begins a parameter's value (RFC 9110 §5.6.6: a value is a token or a
 * quoted-string, so a quote inside a token, `v=a"b`, starts nothing).
 */
function startsValue(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  return text[i] === '=';
}

/** Where the quoted-string opened before `from` ends; -1 when it never does. */
function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    // A quoted-pair (`\"`) takes the next character as it is, a quote included.
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** Parses `type/subtype; a=b`; returns `undefined` when it is not a media type. */
export function parseMediaType(text: string): MediaType | undefined {
  // RFC 9110 §5.6.6: parameters are separated by semicolons outside their quoted values.
  const parts = splitOutsideQuotes(text, ';');
  const essence = (parts[0] as string).trim().toLowerCase();
  const slash = essence.indexOf('/');
  if (slash <= 0) return undefined;
  const type = essence.slice(0, slash);
  const subtype = essence.slice(slash + 1);
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  let params: Record<string, string> | undefined;
  for (let i = 1; i < parts.length; i++) {
    const part = (parts[i] as string).trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    if (!TOKEN.test(key)) continue;
    params ??= new DataRecord<string>();
    params[key] = unquote(part.slice(eq + 1).trim());
  }
  return { type, subtype, params: params ?? EMPTY };
}

/** The `type/subtype` part of a media type, lower-cased (`''` when there is none). */
export function mediaTypeEssence(text: string | undefined): string {
  if (text === undefined) return '';
  const semi = text.indexOf(';');
  return (semi === -1 ? text : text.slice(0, semi)).trim().toLowerCase();
}

/** Whether a media type's essence is JSON: `application/json` or any `+json` type (RFC 6839). */
export function isJsonMediaType(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json');
}

/**
 * Parses an `Accept` header into media ranges. Never throws: malformed members are skipped
 * (RFC 9110 §12.5.1 lets a server ignore what it cannot parse), and so is a member whose weight
 * is not a qvalue (`q=.5`, `q=2`, `q=0.0001`, RFC 9110 §12.4.2): read as q=1 it would turn a
 * range the client meant to down-weight, or to refuse, into its first choice.
 */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  // RFC 9110 §5.6.1: members are separated by commas outside quoted parameter values.
  members: for (const member of splitOutsideQuotes(header, ',')) {
    if (member.trim() === '') continue;
    const parsed = parseMediaType(member);
    if (parsed === undefined) continue;
    if (parsed.type === '*' && parsed.subtype !== '*') continue;
    let q = 1;
    let params: Record<string, string> | undefined;
    for (const key of Object.keys(parsed.params)) {
      const value = parsed.params[key] as string;
      if (key === 'q') {
        if (!QVALUE.test(value)) continue members;
        q = Number(value);
        // Parameters after q are accept-ext, not media type parameters (RFC 9110 §12.5.1).
        break;
      }
      params ??= new DataRecord<string>();
      params[key] = value;
    }
    ranges.push({ type: parsed.type, subtype: parsed.subtype, params: params ?? EMPTY, q });
  }
  return ranges;
}

/** A parameter value as a token, or as a quoted-string when it is not one (RFC 9110 §5.6.6). */
function formatParameterValue(value: string): string {
  return TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** Formats media ranges back into an `Accept` header value. */
export function formatAccept(ranges: readonly MediaRange[]): string {
  return ranges
    .map((range) => {
      let out = `${range.type}/${range.subtype}`;
      for (const key of Object.keys(range.params)) {
        out += `;${key}=${formatParameterValue(range.params[key] as string)}`;
      }
      if (range.q !== 1) out += `;q=${range.q}`;
      return out;
    })
    .join(', ');
}

function specificity(range: MediaRange, candidate: MediaType): number {
  if (range.type === '*') return 0;
  if (range.type !== candidate.type) return -1;
  if (range.subtype === '*') return 1;
  if (range.subtype !== candidate.subtype) return -1;
  const keys = Object.keys(range.params);
  for (const key of keys) {
    // The key is the client's: a candidate's own parameters only, whatever object holds them.
    const value = Object.hasOwn(candidate.params, key)
      ? candidate.params[key]
      : key === 'charset'
        ? impliedCharset(candidate)
        : undefined;
    if (value?.toLowerCase() !== range.params[key]?.toLowerCase()) return -1;
  }
  return 2 + keys.length;
}

/** JSON defines no charset parameter: it is always UTF-8 (RFC 8259 §8.1). */
function impliedCharset(candidate: MediaType): string | undefined {
  const json =
    candidate.type === 'application' &&
    (candidate.subtype === 'json' || candidate.subtype.endsWith('+json'));
  return json ? 'utf-8' : undefined;
}

/** The q-value the client gives `candidate`: that of the most specific matching range. */
export function qualityOf(ranges: readonly MediaRange[], candidate: MediaType): number {
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const score = specificity(range, candidate);
    if (score > best) {
      best = score;
      q = range.q;
    }
  }
  return best < 0 ? 0 : q;
}

/** {@link parseAccept} with a small bounded memo: clients send a handful of distinct values. */
export const parseAcceptCached: (header: string) => MediaRange[] = memoizeHeaderParser(
  parseAccept,
  256,
);

/**
 * Picks the best of `available` (in the server's order of preference) for an `Accept` header,
 * or `undefined` when none is acceptable. Ties go to the earlier entry of `available`.
 *
 * @example
 * negotiate('text/*;q=0.5, application/json', [json, html]); // json
 */
export function negotiate<T extends MediaType>(
  accept: string | undefined,
  available: readonly T[],
): T | undefined {
  if (available.length === 0) return undefined;
  if (accept === undefined || accept === '*/*') return available[0];
  // Remembered per list and value: 766 instructions fewer per Lambda GET event sending
  // `Accept: application/json` (27,644 → 26,878, bench/RESULTS.md).
  let choices = CHOICES.get(available);
  if (choices === undefined) {
    choices = new Map();
    CHOICES.set(available, choices);
  }
  const known = choices.get(accept);
  if (known !== undefined) return known === NONE_ACCEPTABLE ? undefined : (known as T);
  const chosen = choose(accept, available);
  // Clients send a handful of distinct values; a client making up new ones is not remembered.
  if (choices.size < 64) choices.set(accept, chosen ?? NONE_ACCEPTABLE);
  return chosen;
}

// What `negotiate` chose for each Accept value seen, per list of available types (the lists are
// the application's and its routes', made once).
const CHOICES = new WeakMap<
  readonly MediaType[],
  Map<string, MediaType | typeof NONE_ACCEPTABLE>
>();
const NONE_ACCEPTABLE = Symbol('none acceptable');

function choose<T extends MediaType>(accept: string, available: readonly T[]): T | undefined {
  if (accept.trim() === '') return available[0];
  const ranges = parseAcceptCached(accept);
  // An Accept header made only of members we could not parse says nothing usable: ignore it.
  if (ranges.length === 0) return available[0];
  let chosen: T | undefined;
  let bestQ = 0;
  for (const candidate of available) {
    const q = qualityOf(ranges, candidate);
    if (q > bestQ) {
      bestQ = q;
      chosen = candidate;
    }
  }
  return chosen;
}
