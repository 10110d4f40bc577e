/**
 * Byte ranges (RFC 9110 §14.1): the parser never throws, keeps every range inside the
 * representation, and covers exactly the bytes asked for.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ByteRange,
  formatContentRange,
  formatUnsatisfiedRange,
  MAX_RANGES,
  parseRange,
} from '../../src/http/range.js';

describe('parseRange', () => {
  it('reads the three forms of RFC 9110 §14.1.2', () => {
    expect(parseRange('bytes=0-499', 10000)).toEqual({
      kind: 'ranges',
      ranges: [{ start: 0, end: 499 }],
    });
    expect(parseRange('bytes=9500-', 10000)).toEqual({
      kind: 'ranges',
      ranges: [{ start: 9500, end: 9999 }],
    });
    expect(parseRange('bytes=-500', 10000)).toEqual({
      kind: 'ranges',
      ranges: [{ start: 9500, end: 9999 }],
    });
  });

  it('clamps a last position past the end and a suffix longer than the representation', () => {
    expect(parseRange('bytes=5-100', 10)).toEqual({
      kind: 'ranges',
      ranges: [{ start: 5, end: 9 }],
    });
    expect(parseRange('bytes=-100', 10)).toEqual({
      kind: 'ranges',
      ranges: [{ start: 0, end: 9 }],
    });
  });

  it('keeps several ranges, merging the overlapping and adjacent ones', () => {
    expect(parseRange('bytes=0-1, 5-6', 10)).toEqual({
      kind: 'ranges',
      ranges: [
        { start: 0, end: 1 },
        { start: 5, end: 6 },
      ],
    });
    expect(parseRange('bytes=0-3,2-5,6-7', 10)).toEqual({
      kind: 'ranges',
      ranges: [{ start: 0, end: 7 }],
    });
  });

  it('is case-insensitive in the unit and tolerant of whitespace', () => {
    expect(parseRange('Bytes = 1-2 ,  4-4', 10)).toEqual({
      kind: 'ranges',
      ranges: [
        { start: 1, end: 2 },
        { start: 4, end: 4 },
      ],
    });
  });

  it('is unsatisfiable when no range overlaps the representation', () => {
    expect(parseRange('bytes=10-20', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });

  it('ignores a non-zero suffix on an empty representation: satisfiable, yet no 206 can say it', () => {
    // RFC 9110 §14.1.2: the one satisfiable form on a zero-length representation; §14.4 has no
    // Content-Range for zero bytes; §14.2 lets the server ignore Range there: 200, empty body.
    for (const header of ['bytes=-5', 'bytes=-1', 'bytes=0-,-5', 'bytes=-0,-1', 'bytes=3-4, -9,']) {
      expect(parseRange(header, 0), header).toEqual({ kind: 'ignore' });
    }
    // Every other form selects nothing that exists: 416 with bytes */0.
    for (const header of ['bytes=0-', 'bytes=0-0', 'bytes=-0', 'bytes=5-9,-0']) {
      expect(parseRange(header, 0), header).toEqual({ kind: 'unsatisfiable' });
    }
  });

  it('ignores what it cannot use (RFC 9110 §14.2): other units, garbage, inverted ranges', () => {
    for (const header of [
      'items=0-1',
      'bytes',
      'bytes=',
      'bytes=a-b',
      'bytes=5-1',
      'bytes=--1',
      'bytes=1-2-3',
      'bytes=0x10-20',
      'bytes=1.5-2',
      'bytes=+1-2',
      '',
    ]) {
      expect(parseRange(header, 100), header).toEqual({ kind: 'ignore' });
    }
    expect(parseRange(undefined, 100)).toEqual({ kind: 'ignore' });
  });

  it(`ignores more than ${MAX_RANGES} ranges rather than doing that much work`, () => {
    const many = Array.from({ length: MAX_RANGES + 1 }, (_, i) => `${i * 2}-${i * 2}`).join(',');
    expect(parseRange(`bytes=${many}`, 1000)).toEqual({ kind: 'ignore' });
  });

  it('formats Content-Range for 206 and 416', () => {
    expect(formatContentRange({ start: 0, end: 499 }, 1234)).toBe('bytes 0-499/1234');
    expect(formatUnsatisfiedRange(1234)).toBe('bytes */1234');
  });

  it('never throws, whatever the header and size', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat({ max: 2 ** 40 }), (header, size) => {
        const result = parseRange(header, size);
        expect(['ignore', 'unsatisfiable', 'ranges']).toContain(result.kind);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.constantFrom('bytes=', '-', ',', ' ', '0', '9'), fc.nat().map(String)),
          {
            maxLength: 20,
          },
        ),
        fc.nat({ max: 10_000 }),
        (pieces, size) => {
          parseRange(pieces.join(''), size);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('covers exactly the requested bytes, inside the representation, disjoint, in the order asked', () => {
    const spec = fc.oneof(
      fc.tuple(fc.nat({ max: 60 }), fc.nat({ max: 60 })).map(([a, b]) => ({
        text: `${Math.min(a, b)}-${Math.max(a, b)}`,
        covers: (i: number) => i >= Math.min(a, b) && i <= Math.max(a, b),
        nonZeroSuffix: false,
      })),
      fc.nat({ max: 60 }).map((a) => ({
        text: `${a}-`,
        covers: (i: number) => i >= a,
        nonZeroSuffix: false,
      })),
      fc.nat({ max: 60 }).map((n) => ({
        text: `-${n}`,
        covers: (i: number, size: number) => i >= size - n,
        nonZeroSuffix: n > 0,
      })),
    );
    fc.assert(
      fc.property(
        fc.array(spec, { minLength: 1, maxLength: MAX_RANGES }),
        fc.nat({ max: 50 }),
        (specs, size) => {
          const result = parseRange(`bytes=${specs.map((s) => s.text).join(', ')}`, size);
          const wanted = new Set<number>();
          for (let i = 0; i < size; i++) if (specs.some((s) => s.covers(i, size))) wanted.add(i);
          if (wanted.size === 0) {
            // RFC 9110 §14.1.2: on an empty representation a non-zero suffix is satisfiable but
            // selects nothing a 206 could describe, so Range is ignored (200, empty body).
            const satisfiable = size === 0 && specs.some((s) => s.nonZeroSuffix);
            expect(result.kind).toBe(satisfiable ? 'ignore' : 'unsatisfiable');
            return;
          }
          expect(result.kind).toBe('ranges');
          const ranges = (result as { ranges: ByteRange[] }).ranges;
          const got = new Set<number>();
          let previousEnd = -2;
          for (const range of ranges.slice().sort((a, b) => a.start - b.start)) {
            expect(range.start).toBeGreaterThanOrEqual(0);
            expect(range.end).toBeLessThan(size);
            expect(range.start).toBeLessThanOrEqual(range.end);
            // Disjoint and not adjacent (adjacent ones are merged).
            expect(range.start).toBeGreaterThan(previousEnd + 1);
            previousEnd = range.end;
            for (let i = range.start; i <= range.end; i++) got.add(i);
          }
          expect([...got].sort((a, b) => a - b)).toEqual([...wanted].sort((a, b) => a - b));
          // In the order asked (RFC 9110 §15.3.7.2): each range where the first spec that
          // selects any of its bytes was asked.
          const firstAsked = (range: ByteRange) =>
            specs.findIndex((s) =>
              Array.from({ length: range.end - range.start + 1 }, (_, i) => range.start + i).some(
                (i) => s.covers(i, size),
              ),
            );
          const order = ranges.map(firstAsked);
          expect(order).toEqual(order.slice().sort((a, b) => a - b));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('keeps ranges apart in the order asked, a merged one where its first part was asked', () => {
    expect(parseRange('bytes=20-21,0-1', 26)).toEqual({
      kind: 'ranges',
      ranges: [
        { start: 20, end: 21 },
        { start: 0, end: 1 },
      ],
    });
    expect(parseRange('bytes=20-21,5-6,0-1,1-3', 26)).toEqual({
      kind: 'ranges',
      ranges: [
        { start: 20, end: 21 },
        { start: 5, end: 6 },
        { start: 0, end: 3 },
      ],
    });
  });

  it('round-trips: a 206 Content-Range names the range it was made from', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1e9 }),
        fc.nat({ max: 1e9 }),
        fc.nat({ max: 1e9 }),
        (a, b, extra) => {
          const start = Math.min(a, b);
          const end = Math.max(a, b);
          const size = end + 1 + extra;
          const result = parseRange(`bytes=${start}-${end}`, size);
          expect(result).toEqual({ kind: 'ranges', ranges: [{ start, end }] });
          expect(formatContentRange({ start, end }, size)).toBe(`bytes ${start}-${end}/${size}`);
        },
      ),
    );
  });
});
