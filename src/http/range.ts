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
  /** No usable Range: serve the whole representation with 200 (RFC 9110 §14.2 lets us ignore it). */
  | { kind: 'ignore' }
  /** Syntactically valid but nothing overlaps the representation: 416. */
  | { kind: 'unsatisfiable' }
  /** One or more satisfiable ranges, in the order asked, overlapping ones merged. */
  | { kind: 'ranges'; ranges: ByteRange[] };

/** More ranges than this are answered with the whole representation (a cheap DoS guard). */
export const MAX_RANGES = 16;

const IGNORE: RangeRequest = { kind: 'ignore' };
const DIGITS = /^\d+$/;

/**
 * Evaluates a `Range` header against a representation of `size` bytes. Never throws.
 *
 * @example
 * parseRange('bytes=0-99', 1000); // { kind: 'ranges', ranges: [{ start: 0, end: 99 }] }
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return IGNORE;
  const eq = header.indexOf('=');
  if (eq === -1) return IGNORE;
  // RFC 9110 §14.1: the unit is case-insensitive; only "bytes" is defined.
  if (header.slice(0, eq).trim().toLowerCase() !== 'bytes') return IGNORE;
  const specs = header.slice(eq + 1).split(',');
  if (specs.length > MAX_RANGES) return IGNORE;
  const ranges: ByteRange[] = [];
  let sawSpec = false;
  for (const raw of specs) {
    const spec = raw.trim();
    if (spec === '') continue;
    const dash = spec.indexOf('-');
    if (dash === -1) return IGNORE;
    const first = spec.slice(0, dash).trim();
    const last = spec.slice(dash + 1).trim();
    sawSpec = true;
    if (first === '') {
      // suffix-range: the last N bytes (§14.1.1); N = 0 is unsatisfiable.
      if (!DIGITS.test(last)) return IGNORE;
      const length = Number(last);
      if (length > 0 && size > 0) ranges.push({ start: Math.max(0, size - length), end: size - 1 });
      continue;
    }
    if (!DIGITS.test(first) || (last !== '' && !DIGITS.test(last))) return IGNORE;
    const start = Number(first);
    const end = last === '' ? size - 1 : Number(last);
    // §14.1.1: a last-pos below first-pos makes the whole header invalid.
    if (last !== '' && end < start) return IGNORE;
    if (start >= size) continue;
    ranges.push({ start, end: Math.min(end, size - 1) });
  }
  if (!sawSpec) return IGNORE;
  if (ranges.length === 0) return { kind: 'unsatisfiable' };
  return { kind: 'ranges', ranges: coalesce(ranges) };
}

// Overlapping or adjacent ranges are merged (§14.2 allows it) so a client cannot make us send the
// same bytes many times over.
function coalesce(ranges: ByteRange[]): ByteRange[] {
  if (ranges.length === 1) return ranges;
  const sorted = ranges.slice().sort((a, b) => a.start - b.start);
  const merged: ByteRange[] = [{ ...(sorted[0] as ByteRange) }];
  for (let i = 1; i < sorted.length; i++) {
    const range = sorted[i] as ByteRange;
    const previous = merged[merged.length - 1] as ByteRange;
    if (range.start <= previous.end + 1) previous.end = Math.max(previous.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

/** `bytes start-end/size` for a 206. */
export function formatContentRange(range: ByteRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}

/** `bytes *\/size` for a 416. */
export function formatUnsatisfiedRange(size: number): string {
  return `bytes */${size}`;
}
