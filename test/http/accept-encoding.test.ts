/**
 * Accept-Encoding negotiation (RFC 9110 §12.5.3): examples for each rule, and properties over
 * whatever a client may send, since the header is client input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseEncoding, parseAcceptEncoding } from '../../src/http/accept-encoding.js';
import { PROTOTYPE_NAMES } from './untrusted.js';

const OFFERED = ['br', 'zstd', 'gzip'] as const;

describe('chooseEncoding: examples', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.5', 'br'],
    ['gzip;q=0.001', 'gzip'],
    ['gzip;q=0', undefined],
    ['gzip;q=0.000', undefined],
    ['*', 'br'],
    ['*;q=0', undefined],
    ['*, br;q=0', 'zstd'],
    ['*;q=0.5, gzip', 'gzip'],
    ['identity', undefined],
    ['identity;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, identity', undefined],
    ['gzip, identity;q=0.5', 'gzip'],
    ['gzip;q=0.5, identity;q=0.5', 'gzip'],
    ['deflate, compress', undefined],
    ['gzip;q=2', undefined],
    ['gzip;q=-1', undefined],
    ['gzip;q=0.1234', undefined],
    ['gzip;q=abc', undefined],
    ['gzip;q=', undefined],
    ['gzip ; Q=1.0', 'gzip'],
    ['gzip;level=9', 'gzip'],
    [' , ,gzip,, ', 'gzip'],
    ['br;q=0.9, br;q=0', undefined],
  ])('%j → %j', (header, expected) => {
    expect(chooseEncoding(header, OFFERED)).toBe(expected);
  });

  it('breaks ties in the order offered', () => {
    expect(chooseEncoding('gzip, br', ['gzip', 'br'])).toBe('gzip');
    expect(chooseEncoding('gzip, br', ['br', 'gzip'])).toBe('br');
    expect(chooseEncoding('br', ['gzip'])).toBeUndefined();
  });

  it('keeps client-chosen names as data: prototype names are codings like any other', () => {
    const parsed = parseAcceptEncoding(PROTOTYPE_NAMES.join(', '));
    expect(parsed.weights.get('__proto__')).toBe(1);
    expect(chooseEncoding(PROTOTYPE_NAMES.join(', '), OFFERED)).toBeUndefined();
    expect(chooseEncoding('constructor, toString, gzip', OFFERED)).toBe('gzip');
  });
});

const coding = fc.constantFrom(
  'br',
  'zstd',
  'gzip',
  'x-gzip',
  'deflate',
  'identity',
  '*',
  'BR',
  'Gzip',
);
const qvalue = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 0, max: 1000 }).map((n) => (n / 1000).toFixed(3).replace(/\.?0+$/, '') || '0'),
  fc.string({ maxLength: 5 }),
);
const member = fc
  .tuple(coding, qvalue)
  .map(([name, q]) => (q === undefined ? name : `${name};q=${q}`));
const header = fc.array(member, { maxLength: 8 }).map((members) => members.join(', '));

/** The weight a rule-by-rule reading of §12.5.3 gives `name` (last listing wins). */
function referenceWeight(text: string, name: string): number {
  let own: number | undefined;
  let wildcard: number | undefined;
  for (const raw of text.split(',')) {
    const [namePart, ...params] = raw.split(';');
    let listed = (namePart ?? '').trim().toLowerCase();
    if (listed === '') continue;
    if (listed === 'x-gzip') listed = 'gzip';
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if ((key ?? '').trim().toLowerCase() !== 'q') continue;
      const text = (value ?? '').trim();
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text) ? Number(text) : 0;
    }
    if (listed === '*') wildcard = q;
    else if (listed === name) own = q;
  }
  return own ?? wildcard ?? 0;
}

describe('chooseEncoding: properties', () => {
  it('never throws, and answers one of the offered codings or nothing, for any string', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const chosen = chooseEncoding(text, OFFERED);
        expect(chosen === undefined || OFFERED.includes(chosen)).toBe(true);
      }),
    );
  });

  it('chooses a coding the client accepts (q > 0) with the highest weight, ties by the server', () => {
    fc.assert(
      fc.property(header, (text) => {
        const chosen = chooseEncoding(text, OFFERED);
        const weights = OFFERED.map((name) => referenceWeight(text, name));
        const best = Math.max(...weights);
        const identity = /(^|,)\s*identity\s*(;|,|$)/i.test(text)
          ? referenceWeight(text.replace(/\bidentity\b/gi, 'zz-identity'), 'zz-identity')
          : undefined;
        if (best === 0 || (identity !== undefined && identity > best)) {
          expect(chosen).toBeUndefined();
        } else {
          expect(chosen).toBe(OFFERED[weights.indexOf(best)]);
        }
      }),
    );
  });

  it('a coding refused with q=0 at the end is never chosen', () => {
    fc.assert(
      fc.property(header, fc.constantFrom(...OFFERED), (text, refused) => {
        const chosen = chooseEncoding(`${text}, ${refused};q=0`, OFFERED);
        expect(chosen).not.toBe(refused);
      }),
    );
  });

  it('does not depend on the order of distinct members or on letter case', () => {
    const distinct = fc
      .uniqueArray(fc.tuple(coding, qvalue), {
        selector: ([name]) => name.toLowerCase().replace('x-gzip', 'gzip'),
        maxLength: 6,
      })
      .map((members) => members.map(([name, q]) => (q === undefined ? name : `${name};q=${q}`)));
    fc.assert(
      fc.property(distinct, (members) => {
        const forward = chooseEncoding(members.join(','), OFFERED);
        expect(chooseEncoding([...members].reverse().join(' , '), OFFERED)).toBe(forward);
        expect(chooseEncoding(members.join(',').toUpperCase(), OFFERED)).toBe(forward);
      }),
    );
  });
});
