/**
 * Byte ranges (RFC 9110 §14).
 */

/** One satisfiable byte range, `end` inclusive as in `Content-Range`. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What a `Range` header asks of a representation of a given size. */
export type RangeRequest =
  /**
   * No usable Range: serve the whole representation with 200 (RFC 9110 §14.2 lets us ignore it).
   * Also the answer for a satisfiable suffix-range on an empty representation: a 206 cannot
   * describe zero bytes, see {@link parseRange}.
   */
  | { kind: 'ignore' }
  /** Syntactically valid but nothing overlaps the representation: 416. */
  | { kind: 'unsatisfiable' }
  /** One or more satisfiable ranges, in the order asked, overlapping ones merged. */
  | { kind: 'ranges'; ranges: ByteRange[] };

/**
 * One range-spec as written (RFC 9110 §14.1.1), before the representation's size is applied:
 * `first-last`, `first-` (`last` undefined), or the suffix-range `-suffix`.
 */
export type RangeSpec =
  | { first: number; last: number | undefined; suffix?: undefined }
  | { first?: undefined; last?: undefined; suffix: number };

/** More ranges than this are answered with the whole representation (a cheap DoS guard). */
export const MAX_RANGES = 16;

const IGNORE: RangeRequest = { kind: 'ignore' };
const UNSATISFIABLE: RangeRequest = { kind: 'unsatisfiable' };
const DIGITS = /^\d+$/;

/**
 * The range-specs of a `bytes` Range header, in the order written, or `undefined` when the
 * header must be ignored (absent, another unit, malformed, or more than {@link MAX_RANGES}
 * specs). For a store that knows the size only after asking for the bytes (S3); everything else
 * wants {@link parseRange}.
 *
 * @example
 * readRangeSpecs('bytes=0-1, -5'); // [{ first: 0, last: 1 }, { suffix: 5 }]
 */
export function readRangeSpecs(header: string | undefined): RangeSpec[] | undefined {
  if (header === undefined) return undefined;
  const eq = header.indexOf('=');
  if (eq === -1) return undefined;
  // RFC 9110 §14.1: the unit is case-insensitive; only "bytes" is defined.
  if (header.slice(0, eq).trim().toLowerCase() !== 'bytes') return undefined;
  const parts = header.slice(eq + 1).split(',');
  if (parts.length > MAX_RANGES) return undefined;
  const specs: RangeSpec[] = [];
  for (const raw of parts) {
    // §5.6.1.2: empty list elements (`bytes=2-4,`) are ignored, not range-specs.
    const spec = raw.trim();
    if (spec === '') continue;
    const dash = spec.indexOf('-');
    if (dash === -1) return undefined;
    const first = spec.slice(0, dash).trim();
    const last = spec.slice(dash + 1).trim();
    if (first === '') {
      if (!DIGITS.test(last)) return undefined;
      specs.push({ suffix: Number(last) });
      continue;
    }
    if (!DIGITS.test(first) || (last !== '' && !DIGITS.test(last))) return undefined;
    const start = Number(first);
    const end = last === '' ? undefined : Number(last);
    // §14.1.1: a last-pos below first-pos makes the whole header invalid.
    if (end !== undefined && end < start) return undefined;
    specs.push({ first: start, last: end });
  }
  return specs.length === 0 ? undefined : specs;
}

/**
 * Evaluates a `Range` header against a representation of `size` bytes. Never throws.
 *
 * A suffix-range with a non-zero length on an empty representation is `ignore`, not
 * `unsatisfiable`: RFC 9110 §14.1.2 makes it the one satisfiable form of range-spec there, so a
 * 416 would be wrong, yet a 206 cannot carry it (a Content-Range names a first and a last byte,
 * §14.4, and there is none). §14.2 lets a server ignore Range on a representation with no
 * content, so the answer is the empty representation with 200, as S3 itself answers.
 *
 * @example
 * parseRange('bytes=0-99', 1000); // { kind: 'ranges', ranges: [{ start: 0, end: 99 }] }
 * parseRange('bytes=-5', 0); // { kind: 'ignore' }: 200 with the empty body
 * parseRange('bytes=0-', 0); // { kind: 'unsatisfiable' }: 416, Content-Range: bytes *\/0
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  const specs = readRangeSpecs(header);
  if (specs === undefined) return IGNORE;
  const ranges: ByteRange[] = [];
  let satisfiedByNothing = false;
  for (const spec of specs) {
    if (spec.suffix !== undefined) {
      // suffix-range: the last N bytes, or all of them when there are fewer (§14.1.2).
      if (spec.suffix === 0) continue;
      if (size === 0) satisfiedByNothing = true;
      else ranges.push({ start: Math.max(0, size - spec.suffix), end: size - 1 });
      continue;
    }
    if (spec.first >= size) continue;
    ranges.push({ start: spec.first, end: Math.min(spec.last ?? size - 1, size - 1) });
  }
  if (ranges.length === 0) return satisfiedByNothing ? IGNORE : UNSATISFIABLE;
  return { kind: 'ranges', ranges: coalesce(ranges) };
}

// Overlapping or adjacent ranges are merged (§14.2 allows it) so a client cannot make us send the
// same bytes many times over. The rest keep the order they were asked in (§15.3.7.2): a merged
// range goes where the first of its parts was asked.
function coalesce(ranges: ByteRange[]): ByteRange[] {
  if (ranges.length === 1) return ranges;
  const sorted = ranges
    .map((range, asked) => ({ start: range.start, end: range.end, asked }))
    .sort((a, b) => a.start - b.start);
  const merged = [{ ...(sorted[0] as (typeof sorted)[number]) }];
  for (let i = 1; i < sorted.length; i++) {
    const range = sorted[i] as (typeof sorted)[number];
    const previous = merged[merged.length - 1] as (typeof sorted)[number];
    if (range.start <= previous.end + 1) {
      previous.end = Math.max(previous.end, range.end);
      previous.asked = Math.min(previous.asked, range.asked);
    } else merged.push({ ...range });
  }
  return merged.sort((a, b) => a.asked - b.asked).map(({ start, end }) => ({ start, end }));
}

/** `bytes start-end/size` for a 206. */
export function formatContentRange(range: ByteRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}

/** `bytes *\/size` for a 416. */
export function formatUnsatisfiedRange(size: number): string {
  return `bytes */${size}`;
}
