/**
 * `Accept` parsing and negotiation (RFC 9110 §12.5.1): never throws, round-trips, and picks as
 * the RFC says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatAccept,
  type MediaRange,
  negotiate,
  parseAccept,
} from '../../src/http/media-type.js';

const token = fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,10}$/);
const qvalue = fc.oneof(
  fc.constant(1),
  fc.integer({ min: 0, max: 999 }).map((n) => n / 1000),
);
const mediaRange: fc.Arbitrary<MediaRange> = fc
  .tuple(
    fc.oneof(
      fc.constant(['*', '*'] as const),
      fc.tuple(token, fc.constant('*')),
      fc.tuple(token, token),
    ),
    fc.dictionary(
      token.filter((key) => key !== 'q'),
      token,
      { maxKeys: 2 },
    ),
    qvalue,
  )
  .map(([[type, subtype], params, q]) => ({
    type,
    subtype,
    params: type === '*' ? {} : params,
    q,
  }));

const available = [
  { type: 'application', subtype: 'json', params: {} },
  { type: 'text', subtype: 'html', params: {} },
  { type: 'text', subtype: 'plain', params: {} },
];

describe('Accept', () => {
  it('parses q-values, parameters and wildcards', () => {
    expect(parseAccept('text/html;level=1, text/*;q=0.3, */*;q=0')).toEqual([
      { type: 'text', subtype: 'html', params: { level: '1' }, q: 1 },
      { type: 'text', subtype: '*', params: {}, q: 0.3 },
      { type: '*', subtype: '*', params: {}, q: 0 },
    ]);
  });

  it('skips malformed members, a member with a malformed weight among them', () => {
    expect(parseAccept('garbage, */json, text/plain;q=2, ;;, application/json')).toEqual([
      { type: 'application', subtype: 'json', params: {}, q: 1 },
    ]);
    // RFC 9110 §12.4.2: "0" or "1" with at most three decimals. Read as q=1, each of these
    // would make a range the client down-weighted its first choice.
    for (const weight of ['.5', '2', 'abc', '-1', '0.0001', '1.0001', '']) {
      expect(parseAccept(`text/html, application/json;q=${weight}`)).toEqual([
        { type: 'text', subtype: 'html', params: {}, q: 1 },
      ]);
    }
    expect(negotiate('text/html;q=0.9, application/json;q=.5', available)?.subtype).toBe('html');
    expect(negotiate('application/json;q=0.000, */*', available)?.subtype).toBe('html');
    // Four decimals is no qvalue: the member says nothing, and `*/*` takes JSON first.
    expect(negotiate('application/json;q=0.0000, */*', available)?.subtype).toBe('json');
  });

  it('splits members and parameters only outside quoted values', () => {
    expect(parseAccept('text/html;x="a,application/json;q=0.1", text/plain;q=0.5')).toEqual([
      { type: 'text', subtype: 'html', params: { x: 'a,application/json;q=0.1' }, q: 1 },
      { type: 'text', subtype: 'plain', params: {}, q: 0.5 },
    ]);
    expect(parseAccept('text/plain;x="say \\"a;b\\", c";q=0.2')).toEqual([
      { type: 'text', subtype: 'plain', params: { x: 'say "a;b", c' }, q: 0.2 },
    ]);
    expect(negotiate('text/html;x="a,application/json;q=0.1"', available)).toBeUndefined();
  });

  it('reads the members after a quote that starts no value or is never closed', () => {
    // A quote inside a token starts nothing (RFC 9110 §5.6.6); an unclosed one quotes nothing.
    for (const stray of ['text/x;v=a"b', 'text/x;v="abc', 'text/x"', '"']) {
      const ranges = parseAccept(`${stray}, application/json;q=0.5`);
      expect(ranges.at(-1)).toEqual({
        type: 'application',
        subtype: 'json',
        params: {},
        q: 0.5,
      });
    }
  });

  it('a stray quote in one member never hides the members after it', () => {
    const stray = fc
      .tuple(token, fc.constantFrom('"', 'a"b', '"abc', 'a"', '\\"'))
      .map(([name, value]) => `text/x;${name}=${value}`);
    fc.assert(
      fc.property(fc.array(mediaRange, { maxLength: 5 }), stray, (ranges, member) => {
        const header = [member, ...ranges.map((range) => formatAccept([range]))].join(', ');
        const parsed = parseAccept(header);
        expect(parsed.slice(parsed.length - ranges.length)).toEqual(ranges);
      }),
      { numRuns: 500 },
    );
  });

  it('negotiates by q-value, then specificity, then the server order', () => {
    expect(negotiate('text/*;q=0.5, application/json', available)?.subtype).toBe('json');
    expect(negotiate('text/*, application/json;q=0.1', available)?.subtype).toBe('html');
    expect(negotiate('*/*, application/json;q=0', available)?.subtype).toBe('html');
    expect(negotiate('text/plain, text/*;q=0', available)?.subtype).toBe('plain');
    expect(negotiate('image/png', available)).toBeUndefined();
    expect(negotiate(undefined, available)?.subtype).toBe('json');
    expect(negotiate('APPLICATION/JSON', available)?.subtype).toBe('json');
  });

  it('chooses the same again for a value seen before, for each list on its own', () => {
    const jsonOnly = [available[0] as (typeof available)[number]];
    for (let i = 0; i < 3; i++) {
      expect(negotiate('image/png', available)).toBeUndefined();
      expect(negotiate('text/html', available)?.subtype).toBe('html');
      expect(negotiate('text/html', jsonOnly)).toBeUndefined();
      expect(negotiate('  ', jsonOnly)?.subtype).toBe('json');
    }
    // Past the values remembered per list, choices are still made (a client making up values).
    for (let i = 0; i < 100; i++) {
      expect(
        negotiate(`application/x-${i}, text/plain;q=0.${(i % 9) + 1}`, available)?.subtype,
      ).toBe('plain');
    }
    expect(negotiate('text/*;q=0.5, application/json', available)?.subtype).toBe('json');
  });

  it('never throws, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (header) => {
        const ranges = parseAccept(header);
        for (const range of ranges) expect(range.q >= 0 && range.q <= 1).toBe(true);
        const chosen = negotiate(header, available);
        expect(chosen === undefined || available.includes(chosen)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips: formatted media ranges parse back to the same ranges', () => {
    fc.assert(
      fc.property(fc.array(mediaRange, { maxLength: 6 }), (ranges) => {
        expect(parseAccept(formatAccept(ranges))).toEqual(ranges);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips parameter values that need quoting: commas and semicolons stay inside', () => {
    const quotedValue = fc.string({ unit: fc.constantFrom('a', ',', ';', '=', ' ', '"', '\\') });
    const quoted = fc
      .tuple(
        token,
        token,
        fc.dictionary(
          token.filter((key) => key !== 'q'),
          quotedValue,
          { maxKeys: 2 },
        ),
        qvalue,
      )
      .map(([type, subtype, params, q]): MediaRange => ({ type, subtype, params, q }));
    fc.assert(
      fc.property(fc.array(quoted, { maxLength: 6 }), (ranges) => {
        expect(parseAccept(formatAccept(ranges))).toEqual(ranges);
      }),
      { numRuns: 1000 },
    );
  });

  it('a member with a malformed weight is skipped, wherever it stands', () => {
    const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
    const malformedWeight = fc.oneof(
      fc.constantFrom('.5', '2', 'abc', '-1', '0.0001', '1.5', '1.0001', '00', ''),
      fc.stringMatching(/^[0-9.a-z-]{1,6}$/).filter((weight) => !QVALUE.test(weight)),
    );
    fc.assert(
      fc.property(
        fc.array(mediaRange, { maxLength: 5 }),
        mediaRange,
        malformedWeight,
        fc.nat(),
        (ranges, malformed, weight, at) => {
          const members = ranges.map((range) => formatAccept([range]));
          const bad = `${formatAccept([{ ...malformed, q: 1 }])};q=${weight}`;
          members.splice(at % (members.length + 1), 0, bad);
          expect(parseAccept(members.join(', '))).toEqual(ranges);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a range with q=0 is never chosen', () => {
    fc.assert(
      fc.property(fc.array(mediaRange, { maxLength: 6 }), (ranges) => {
        const chosen = negotiate(formatAccept(ranges), available);
        if (chosen === undefined || ranges.length === 0) return;
        const exact = ranges.filter(
          (r) =>
            r.type === chosen.type &&
            r.subtype === chosen.subtype &&
            Object.keys(r.params).length === 0,
        );
        for (const range of exact) expect(range.q).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });
});
