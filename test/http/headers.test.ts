import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultiValueHeaders } from '../../src/index.js';

describe('MultiValueHeaders', () => {
  it('looks names up without regard to case and keeps the first casing', () => {
    const headers = new MultiValueHeaders({ 'Content-Type': 'text/plain' });
    expect(headers.get('content-type')).toBe('text/plain');
    expect(headers.get('CONTENT-TYPE')).toBe('text/plain');
    headers.add('content-TYPE', 'x');
    expect(Object.keys(headers.toDict())).toEqual(['Content-Type']);
  });

  it('keeps every value in order; get gives the first', () => {
    const headers = new MultiValueHeaders([
      ['Set-Cookie', 'a=1'],
      ['X', 'y'],
      ['set-cookie', 'b=2'],
    ]);
    expect(headers.get('set-cookie')).toBe('a=1');
    expect(headers.getAll('Set-Cookie')).toEqual(['a=1', 'b=2']);
    expect([...headers]).toEqual([
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['X', 'y'],
    ]);
  });

  it('builds from objects with array values, from pairs, from another instance and from Headers', () => {
    const fromObject = new MultiValueHeaders({ A: ['1', '2'], B: 3, C: undefined });
    expect(fromObject.toMultiDict()).toEqual({ A: ['1', '2'], B: ['3'] });
    const copy = new MultiValueHeaders(fromObject);
    copy.add('A', '3');
    expect(fromObject.getAll('a')).toEqual(['1', '2']);
    expect(copy.getAll('a')).toEqual(['1', '2', '3']);
    const whatwg = new Headers();
    whatwg.append('Set-Cookie', 'a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT');
    whatwg.append('Set-Cookie', 'b=2');
    whatwg.append('Accept', 'text/html');
    const fromWhatwg = new MultiValueHeaders(whatwg);
    expect(fromWhatwg.getAll('set-cookie')).toEqual([
      'a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT',
      'b=2',
    ]);
    expect(fromWhatwg.get('accept')).toBe('text/html');
  });

  it('set replaces, add appends, delete removes', () => {
    const headers = new MultiValueHeaders({ Vary: 'Accept' });
    headers.add('Vary', 'Origin');
    expect(headers.getAll('vary')).toEqual(['Accept', 'Origin']);
    headers.set('vary', 'Cookie');
    expect(headers.getAll('Vary')).toEqual(['Cookie']);
    expect(headers.has('VARY')).toBe(true);
    expect(headers.delete('Vary')).toBe(true);
    expect(headers.has('vary')).toBe(false);
    expect(headers.delete('Vary')).toBe(false);
    expect(headers.get('missing')).toBeUndefined();
    expect(headers.getAll('missing')).toEqual([]);
  });

  it('hands forEachName callers arrays of their own, which later changes leave alone', () => {
    const headers = new MultiValueHeaders([
      ['Vary', 'Accept'],
      ['Vary', 'Origin'],
    ]);
    const kept: Record<string, string[]> = {};
    headers.forEachName((values, name) => {
      kept[name] = values as string[];
    });
    headers.add('Vary', 'Cookie');
    expect(kept.Vary).toEqual(['Accept', 'Origin']);
    (kept.Vary as string[]).length = 0;
    expect(headers.getAll('vary')).toEqual(['Accept', 'Origin', 'Cookie']);
    expect(headers.toDict()).toEqual({ Vary: 'Accept' });
  });

  it('compares names in ASCII case only: a Kelvin sign is no k (property)', () => {
    // RFC 9110 §5.1: field names are tokens, case-insensitive in ASCII. 'K' (U+212A) lower-cases
    // to an ASCII 'k' in Unicode; a name beyond ASCII matches none.
    const token = fc.stringMatching(/^[A-Za-z0-9-]{0,6}$/);
    fc.assert(
      fc.property(token, token, fc.boolean(), (before, after, raw) => {
        const name = `${before}k${after}`;
        const headers = raw
          ? MultiValueHeaders.fromRawPairs([name, 'v'])
          : new MultiValueHeaders({ [name]: 'v' });
        const lookalike = `${before}\u212a${after}`;
        expect(headers.get(lookalike)).toBeUndefined();
        expect(headers.getAll(lookalike)).toEqual([]);
        expect(headers.has(lookalike)).toBe(false);
        expect(headers.delete(lookalike)).toBe(false);
        expect(headers.get(name.toUpperCase())).toBe('v');
      }),
    );
    const keepAlive = new MultiValueHeaders({ 'Keep-Alive': 'timeout=5' });
    expect(keepAlive.get('\u212Aeep-Alive')).toBeUndefined();
    expect(keepAlive.delete('\u212Aeep-alive')).toBe(false);
    expect(keepAlive.get('KEEP-ALIVE')).toBe('timeout=5');
  });

  it('reads raw pairs lazily, as a runtime hands them over', () => {
    const headers = MultiValueHeaders.fromRawPairs(['Host', 'x', 'Cookie', 'a=1', 'cookie', 'b=2']);
    expect(headers.getAll('cookie')).toEqual(['a=1', 'b=2']);
    expect(headers.size).toBe(2);
  });

  it('lists raw pairs in lower case when asked, as Lambda events are, and finds them in any case', () => {
    const raw = ['X-Multi', '1', 'Accept', '*/*', 'x-multi', '2'];
    const headers = MultiValueHeaders.fromRawPairs(raw, true);
    expect(headers.getAll('x-MULTI')).toEqual(['1', '2']);
    expect(headers.get('accept')).toBe('*/*');
    expect([...headers]).toEqual([
      ['x-multi', '1'],
      ['x-multi', '2'],
      ['accept', '*/*'],
    ]);
    const changed = MultiValueHeaders.fromRawPairs(raw, true).set('Vary', 'Accept');
    expect([...changed.names()]).toEqual(['x-multi', 'accept', 'Vary']);
    expect([...MultiValueHeaders.fromRawPairs(raw).names()]).toEqual(['X-Multi', 'Accept']);
  });

  it('refuses names that are not tokens and values with CR, LF or NUL', () => {
    const headers = new MultiValueHeaders();
    expect(() => headers.set('Bad Name', 'x')).toThrow(/Invalid header name/);
    expect(() => headers.add('X', 'a\r\nInjected: yes')).toThrow(/CR, LF and NUL/);
    expect(() => headers.add('X', 'a\0b')).toThrow(TypeError);
  });

  it('never lets a value split a header line (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, value) => {
        const headers = new MultiValueHeaders();
        try {
          headers.add(name, value);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          return;
        }
        for (const [n, v] of headers) {
          expect(n).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);
          expect(v).toMatch(/^[\t\x20-\x7e\x80-\xff]*$/);
        }
      }),
    );
  });

  it('takes every value of visible octets, spaces and tabs, and refuses a control character or one above U+00FF (property)', () => {
    // RFC 9110 §5.5: field content is VCHAR and obs-text, with SP and HTAB between them.
    const octet = fc.oneof(
      fc.constant(0x09),
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0x80, max: 0xff }),
    );
    const control = fc.oneof(
      fc.integer({ min: 0, max: 0x08 }),
      fc.integer({ min: 0x0a, max: 0x1f }),
      fc.constant(0x7f),
    );
    const wide = fc.oneof(fc.integer({ min: 0x100, max: 0xffff }), fc.constant(0x1f600));
    fc.assert(
      fc.property(fc.array(octet), control, wide, fc.nat(), (codes, ctl, code, at) => {
        const value = String.fromCharCode(...codes);
        const headers = new MultiValueHeaders();
        headers.set('X-Value', value);
        expect(headers.get('x-value')).toBe(value);
        const cut = at % (value.length + 1);
        const widened = value.slice(0, cut) + String.fromCodePoint(code) + value.slice(cut);
        expect(() => headers.set('X-Value', widened)).toThrow(/characters above U\+00FF/);
        const controlled = value.slice(0, cut) + String.fromCharCode(ctl) + value.slice(cut);
        expect(() => headers.add('X-Value', controlled)).toThrow(/control characters/);
        expect(headers.get('x-value')).toBe(value);
      }),
    );
  });
  it('reads raw pairs in place exactly as it reads them once indexed (property)', () => {
    // Names in mixed case, some beyond ASCII; lookups in any case.
    // The Kelvin sign lower-cases into an ASCII `k`.
    const letter = fc.constantFrom('a', 'B', 'c', 'X', '-', 'k', '\u212a', 'é', 'Ä', 'İ');
    const name = fc.array(letter, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
    const pairs = fc.array(fc.tuple(name, fc.string({ maxLength: 3 })), { maxLength: 8 });
    fc.assert(
      fc.property(pairs, fc.array(name, { minLength: 1, maxLength: 4 }), (list, lookups) => {
        const raw = list.flat();
        const inPlace = MultiValueHeaders.fromRawPairs(raw);
        const indexed = MultiValueHeaders.fromRawPairs(raw);
        expect(indexed.size).toBeGreaterThanOrEqual(0); // indexes the pairs
        for (const lookup of [...lookups, ...list.map(([n]) => n.toUpperCase())]) {
          expect(inPlace.get(lookup)).toBe(indexed.get(lookup));
          expect(inPlace.has(lookup)).toBe(indexed.has(lookup));
          expect(inPlace.getAll(lookup)).toEqual(indexed.getAll(lookup));
          const key = lookup.toLowerCase();
          if (!/^[\x20-\x7e]+$/.test(key)) continue;
          // A list-valued field's lines read as one value (RFC 9110 §5.3), in place or indexed.
          const joined = indexed.getAll(key).join(', ');
          expect(MultiValueHeaders.getList(inPlace, key)).toBe(
            joined === '' && !indexed.has(key) ? undefined : joined,
          );
          expect(MultiValueHeaders.getList(indexed, key)).toBe(
            MultiValueHeaders.getList(inPlace, key),
          );
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('frames a response in one pass: no Transfer-Encoding, one Content-Length (property)', () => {
    const name = fc.constantFrom(
      'Transfer-Encoding',
      'transfer-encoding',
      'Content-Length',
      'X-A',
      'Vary',
    );
    const pairs = fc.array(fc.tuple(name, fc.stringMatching(/^[a-z0-9]{1,4}$/)), { maxLength: 8 });
    const length = fc.option(fc.stringMatching(/^[0-9]{1,4}$/), { nil: undefined });
    fc.assert(
      fc.property(pairs, length, fc.boolean(), (list, value, replace) => {
        const headers = MultiValueHeaders.fromRawPairs(list.flat());
        const before = headers.getAll('content-length');
        const others = list.filter(([n]) => !/^(transfer-encoding|content-length)$/i.test(n));
        MultiValueHeaders.setFraming(headers, value, replace);
        expect(headers.has('transfer-encoding')).toBe(false);
        const expected = value === undefined || (!replace && before.length > 0) ? before : [value];
        expect(headers.getAll('content-length')).toEqual(expected);
        for (const [n] of others)
          expect(headers.getAll(n)).toEqual(others.filter(([m]) => m === n).map(([, v]) => v));
      }),
      { numRuns: 500 },
    );
  });

  it('writes itself as JSON with lower-case names, repeated lines as a list, in place or indexed', () => {
    const raw = ['Host', 'h', 'X-Tag', 'a', 'Set-Cookie', 'c=1', 'x-tag', 'b', 'set-cookie', 'd=2'];
    const expected = { host: 'h', 'x-tag': ['a', 'b'], 'set-cookie': ['c=1', 'd=2'] };
    expect(JSON.parse(JSON.stringify(MultiValueHeaders.fromRawPairs(raw)))).toEqual(expected);
    const indexed = MultiValueHeaders.fromRawPairs(raw);
    indexed.set('Vary', 'Accept');
    expect(JSON.parse(JSON.stringify({ headers: indexed }))).toEqual({
      headers: { ...expected, vary: 'Accept' },
    });
    // Names a client chooses are data, never the object's prototype or its methods.
    const json = new MultiValueHeaders([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]).toJSON();
    expect(Object.hasOwn(json, '__proto__')).toBe(true);
    expect(json.constructor).toBe('y');
    expect('toString' in json).toBe(false);
  });

  it('finds names in any case however many distinct names were looked up before', () => {
    // Lower-case keys are remembered for a bounded number of names; past it lookups still work.
    const headers = MultiValueHeaders.fromRawPairs(['X-Wanted', 'yes', 'Accept', '*/*']);
    for (let i = 0; i < 600; i++) expect(headers.get(`X-Other-${i}`)).toBeUndefined();
    expect(headers.get('X-WANTED')).toBe('yes');
    expect(headers.get('x-wanted')).toBe('yes');
    expect(headers.getAll('ACCEPT')).toEqual(['*/*']);
    expect(headers.get('İ')).toBeUndefined();
  });
});
