/**
 * How a request's Range is asked of S3: one range-spec goes as it is, several are merged once a
 * HeadObject has told the object's size.
 */
import { rangeLinesUsable } from '../http/conditional.js';
import type { MultiValueHeaders } from '../http/headers.js';
import { type ByteRange, parseRange, type RangeSpec, readRangeSpecs } from '../http/range.js';
import { rangeNotSatisfiable } from './respond.js';

/** What a request's Range asks of S3, before the object's size is known. */
export type RangePlan =
  /** Nothing to honour: the whole object. */
  | { kind: 'whole' }
  /** One range-spec, sent as it is: S3 answers 206 or 416 on its own copy. */
  | { kind: 'one'; range: string }
  /** Several range-specs, merged once the object's size is known ({@link mergedRange}). */
  | { kind: 'sized'; header: string };

export const WHOLE: RangePlan = { kind: 'whole' };

// S3 reads one range per request, and what several range-specs come to depends on the size:
// `0-0,-1` is one range of a 1-byte object and two of a larger one, and `0-1,100-200` is one
// range of a 10-byte object. So a single spec goes to S3 as asked (what browsers and players
// send, in one round trip), and several are merged by the same parseRange as a local file's,
// after a HeadObject has told the size (docs/static-files.md).
export function planRange(headers: MultiValueHeaders): RangePlan {
  // A Range sent twice, or with If-Range on two lines, is ignored as for a local file.
  if (!rangeLinesUsable(headers)) return WHOLE;
  const header = headers.getAll('range')[0] as string;
  const specs = readRangeSpecs(header);
  if (specs === undefined) return WHOLE;
  if (specs.length > 1) return { kind: 'sized', header };
  const only = specs[0] as RangeSpec;
  if (only.suffix !== undefined) return { kind: 'one', range: `bytes=-${position(only.suffix)}` };
  const last = only.last === undefined ? '' : position(only.last);
  return { kind: 'one', range: `bytes=${position(only.first)}-${last}` };
}

// Every position past the object's end means the same to S3; capping them keeps a huge one
// (read as a double) printed as digits rather than as `1e+21`, which S3 would not read.
function position(value: number): string {
  return String(Math.min(value, Number.MAX_SAFE_INTEGER));
}

/**
 * The one range to ask S3 for, once the object's size is known: `undefined` when the specs stay
 * apart after merging (served whole with 200, RFC 9110 §14.2, never as only the first) or
 * Range is to be ignored; a 416 when nothing is satisfiable.
 */
export function mergedRange(header: string, size: number): string | undefined {
  const asked = parseRange(header, size);
  if (asked.kind === 'unsatisfiable') throw rangeNotSatisfiable(size);
  if (asked.kind !== 'ranges' || asked.ranges.length !== 1) return undefined;
  const only = asked.ranges[0] as ByteRange;
  return `bytes=${only.start}-${only.end}`;
}
