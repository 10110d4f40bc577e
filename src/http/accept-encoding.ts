/**
 * Choosing a content coding from `Accept-Encoding` (RFC 9110 §12.5.3) for responses compressed
 * on the fly.
 *
 * - A coding listed with `q=0` is refused; one not listed is acceptable only through `*`, with
 *   the wildcard's weight.
 * - `identity` is always acceptable unless refused; it beats a coding only when the client lists
 *   it with a strictly higher weight (`gzip;q=0.5, identity` keeps the body as it is).
 * - Ties go to the server's order (the `offered` list), Brotli before zstd before gzip by
 *   default: browsers list codings without weights, and Brotli is the smaller.
 * - A malformed weight makes its member refused rather than preferred, so odd input never
 *   selects a coding the client did not clearly ask for.
 * - No header at all means no compression: a client that says nothing may not decode anything.
 */
import { memoizeHeaderParser } from './memo.js';

/** The weights a client gave, by lower-case coding name (`x-gzip` counted as `gzip`). */
export interface AcceptedEncodings {
  readonly weights: ReadonlyMap<string, number>;
  /** The weight of `*`, or `undefined` when absent. */
  readonly wildcard: number | undefined;
}

// Clients send a handful of distinct values; the bound keeps a flood of odd ones cheap.
const parseCached = memoizeHeaderParser(parseAcceptEncoding, 64);

/** A weight as RFC 9110 §12.4.2 writes it: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Parses an `Accept-Encoding` value. Never throws: members without a name are skipped, a
 * malformed weight counts as `q=0`, and a coding listed twice keeps its last weight.
 *
 * @example
 * parseAcceptEncoding('gzip, br;q=0.5').weights.get('br'); // 0.5
 */
export function parseAcceptEncoding(header: string): AcceptedEncodings {
  const weights = new Map<string, number>();
  let wildcard: number | undefined;
  for (const member of header.split(',')) {
    const semicolon = member.indexOf(';');
    const name = (semicolon === -1 ? member : member.slice(0, semicolon)).trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    if (semicolon !== -1) {
      for (const param of member.slice(semicolon + 1).split(';')) {
        const equals = param.indexOf('=');
        const key = (equals === -1 ? param : param.slice(0, equals)).trim().toLowerCase();
        if (key !== 'q') continue;
        const value = equals === -1 ? '' : param.slice(equals + 1).trim();
        q = QVALUE.test(value) ? Number(value) : 0;
      }
    }
    if (name === '*') wildcard = q;
    // `x-gzip` is an alias of gzip (§8.4.1.3).
    else weights.set(name === 'x-gzip' ? 'gzip' : name, q);
  }
  return { weights, wildcard };
}

/** The weight the client gives `coding`: its own, else the wildcard's, else 0. */
export function weightOf(accepted: AcceptedEncodings, coding: string): number {
  return accepted.weights.get(coding) ?? accepted.wildcard ?? 0;
}

/**
 * The coding to send among `offered` (the server's order of preference), or `undefined` to send
 * the body as it is. `header` is the request's `Accept-Encoding`, `undefined` when absent.
 *
 * @example
 * chooseEncoding('gzip, deflate, br', ['br', 'gzip']); // 'br'
 * chooseEncoding('br;q=0.5, gzip', ['br', 'gzip']); // 'gzip'
 * chooseEncoding('gzip;q=0.5, identity', ['gzip']); // undefined
 */
export function chooseEncoding<C extends string>(
  header: string | undefined,
  offered: readonly C[],
): C | undefined {
  if (header === undefined || header === '') return undefined;
  const accepted = parseCached(header);
  let best: C | undefined;
  let bestWeight = 0;
  for (const coding of offered) {
    const weight = weightOf(accepted, coding);
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  if (best === undefined) return undefined;
  const identity = accepted.weights.get('identity');
  return identity !== undefined && identity > bestWeight ? undefined : best;
}
