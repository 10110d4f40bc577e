/**
 * Cookies (RFC 6265): the `Cookie` parser never throws and gives back exactly what
 * `serializeCookie` set; `Set-Cookie` values can never carry a second cookie or attribute.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCookieHeader, serializeCookie } from '../../src/http/cookie.js';

const tokenChar = fc.constantFrom(
  ..."!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".split(''),
);
const cookieName = fc.array(tokenChar, { minLength: 1, maxLength: 12 }).map((c) => c.join(''));

describe('cookies', () => {
  it('parses name=value pairs, unquoting and percent-decoding values', () => {
    expect(parseCookieHeader('a=1; b="two"; c=%20x; d=%E0%A4%A')).toEqual({
      a: '1',
      b: 'two',
      c: ' x',
      d: '%E0%A4%A',
    });
  });

  it('keeps the first of a repeated name (the most specific path, RFC 6265 §5.4)', () => {
    expect(parseCookieHeader('id=inner; id=outer')).toEqual({ id: 'inner' });
  });

  it('skips members without a name or a value separator', () => {
    expect(parseCookieHeader('=x; flag; ok=1;;')).toEqual({ ok: '1' });
  });

  it('is a map without a prototype, so a cookie named __proto__ is just a cookie', () => {
    const cookies = parseCookieHeader('__proto__=x; constructor=y');
    expect(Object.entries(cookies)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
    expect(Object.getPrototypeOf(cookies)).toBeNull();
  });

  it('serialises attributes, and Secure whenever SameSite=None or Partitioned asks for it', () => {
    expect(
      serializeCookie('sid', 'abc', {
        domain: 'example.com',
        path: '/',
        expires: new Date(Date.UTC(2030, 0, 1)),
        maxAge: 3600.7,
        httpOnly: true,
        sameSite: 'None',
        partitioned: true,
      }),
    ).toBe(
      'sid=abc; Domain=example.com; Path=/; Expires=Tue, 01 Jan 2030 00:00:00 GMT; Max-Age=3600; HttpOnly; Secure; SameSite=None; Partitioned',
    );
  });

  it('refuses names, attributes and dates that could split the header', () => {
    expect(() => serializeCookie('a;b', '1')).toThrow(TypeError);
    expect(() => serializeCookie('a', '1', { path: '/; Domain=evil' })).toThrow(TypeError);
    expect(() => serializeCookie('a', '1', { domain: 'x\r\nSet-Cookie: b=2' })).toThrow(TypeError);
    expect(() => serializeCookie('a', '1', { expires: new Date(Number.NaN) })).toThrow(TypeError);
    expect(() => serializeCookie('a', '1', { maxAge: Number.POSITIVE_INFINITY })).toThrow(
      TypeError,
    );
    expect(() => serializeCookie('a', '\ud800')).toThrow(TypeError);
    // sameSite is written as one of its three values, never as the text it was given.
    for (const sameSite of ['None; Domain=evil', 'Lax\r\nX: y', 'constructor', '__proto__', '']) {
      expect(() => serializeCookie('a', '1', { sameSite } as never), sameSite).toThrow(
        /Strict, Lax or None/,
      );
    }
  });

  it('writes sameSite in its canonical case, Secure with any None', () => {
    expect(serializeCookie('a', '1', { sameSite: 'lax' } as never)).toBe('a=1; SameSite=Lax');
    expect(serializeCookie('a', '1', { sameSite: 'none' } as never)).toBe(
      'a=1; Secure; SameSite=None',
    );
  });

  it('refuses an option name it does not know, naming the ones there are', () => {
    // A misspelt httpOnly would leave the cookie readable by scripts.
    expect(() => serializeCookie('sid', '1', { httponly: true } as never)).toThrow(
      /unknown option "httponly"; the options are domain, path, expires, maxAge, httpOnly, secure, sameSite, partitioned/,
    );
    expect(serializeCookie('sid', '1', { httpOnly: true, secure: true })).toBe(
      'sid=1; HttpOnly; Secure',
    );
  });

  it('never throws on any Cookie header', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (header) => {
        const cookies = parseCookieHeader(header);
        for (const name of Object.keys(cookies)) expect(typeof cookies[name]).toBe('string');
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips: what serializeCookie sets, parseCookieHeader reads back', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(cookieName, fc.string({ unit: 'grapheme' })), {
          selector: ([name]) => name,
          maxLength: 6,
        }),
        (pairs) => {
          // A browser sends back the name=value part of each Set-Cookie, joined with "; ".
          const header = pairs
            .map(([name, value]) => serializeCookie(name, value).split(';')[0])
            .join('; ');
          expect({ ...parseCookieHeader(header) }).toEqual(Object.fromEntries(pairs));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never puts a separator or a line break into a serialised value', () => {
    fc.assert(
      fc.property(cookieName, fc.string({ unit: 'grapheme' }), (name, value) => {
        const line = serializeCookie(name, value);
        expect(line).not.toMatch(/[\r\n\0]/);
        expect(line.split(';')).toHaveLength(1);
        expect(line.slice(name.length + 1)).not.toMatch(/[\s",\\]/);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('cookies a browser would drop', () => {
  it('refuses prefixed names without what the prefix promises, a Domain that is no host name', () => {
    expect(() => serializeCookie('__Secure-pref', 'x')).toThrow(/needs secure: true/);
    expect(() => serializeCookie('__secure-pref', 'x')).toThrow(TypeError);
    expect(() => serializeCookie('__Host-sid', 'abc', { httpOnly: true })).toThrow(TypeError);
    expect(() =>
      serializeCookie('__Host-sid', 'abc', { secure: true, path: '/', domain: 'app.example' }),
    ).toThrow(/path: '\/' and no domain/);
    expect(() => serializeCookie('__Host-sid', 'abc', { secure: true })).toThrow(TypeError);
    expect(() => serializeCookie('d', 'x', { domain: 'app example' })).toThrow(TypeError);
    expect(() => serializeCookie('d', 'x', { domain: 'a;b' })).toThrow(TypeError);
    expect(serializeCookie('__Host-sid', 'abc', { secure: true, path: '/', httpOnly: true })).toBe(
      '__Host-sid=abc; Path=/; HttpOnly; Secure',
    );
    // SameSite=None and Partitioned imply Secure.
    expect(serializeCookie('__Secure-p', 'x', { sameSite: 'None' })).toBe(
      '__Secure-p=x; Secure; SameSite=None',
    );
    expect(serializeCookie('d', 'x', { domain: '.app.example' })).toBe('d=x; Domain=.app.example');
    expect(serializeCookie('big', 'x', { maxAge: 1e21 })).toBe(
      'big=x; Max-Age=1000000000000000000000',
    );
  });

  it('writes what a browser keeps whenever it writes a prefixed cookie (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('__Host-', '__Secure-', '__HOST-', '__secure-', ''),
        fc.record(
          {
            secure: fc.boolean(),
            path: fc.constantFrom('/', '/app'),
            domain: fc.constantFrom('app.example', '.example.com'),
            sameSite: fc.constantFrom('Strict', 'Lax', 'None') as fc.Arbitrary<
              'Strict' | 'Lax' | 'None'
            >,
            partitioned: fc.boolean(),
            maxAge: fc.double({ min: -1e30, max: 1e30, noNaN: true }),
          },
          { requiredKeys: [] },
        ),
        (prefix, options) => {
          let header: string;
          try {
            header = serializeCookie(`${prefix}name`, 'v', options);
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError);
            expect(prefix).not.toBe('');
            return;
          }
          const attributes = header.split('; ').slice(1);
          const lower = prefix.toLowerCase();
          if (lower !== '') expect(attributes).toContain('Secure');
          if (lower === '__host-') {
            expect(attributes).toContain('Path=/');
            expect(attributes.some((a) => a.startsWith('Domain='))).toBe(false);
          }
          for (const attribute of attributes.filter((a) => a.startsWith('Max-Age='))) {
            expect(attribute).toMatch(/^Max-Age=-?\d+$/);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('cookie values sent as UTF-8 octets', () => {
  // Header text is octets, one character each, as Node and Fetch runtimes hand it over.
  const asOctets = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
  // Text a script may set with document.cookie: anything but the separators, quotes, `%` and
  // surrounding whitespace.
  const scriptText = fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
    .filter((text) => !/[;,"%\s\\]/.test(text) && text.trim() === text);

  it('are read as the text the client set', () => {
    fc.assert(
      fc.property(
        cookieName.filter((name) => name !== 'z'),
        scriptText,
        (name, text) => {
          expect(parseCookieHeader(`${name}=${asOctets(text)}; z=1`)).toEqual({
            [name]: text,
            z: '1',
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('stay as they are when they are no UTF-8 or not octets', () => {
    const notUtf8 = fc
      .array(fc.integer({ min: 0x21, max: 0xff }), { minLength: 1, maxLength: 12 })
      .map((codes) => String.fromCharCode(...codes))
      .filter((text) => !/[;,"%\\\x7f]/.test(text))
      .filter((text) => {
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'latin1'));
          return false;
        } catch {
          return true;
        }
      });
    fc.assert(
      fc.property(
        cookieName,
        fc.oneof(notUtf8, fc.constantFrom('\u2603', 'caf\u00e9', '\u00c3\u2603')),
        (name, value) => {
          expect(parseCookieHeader(`${name}=${value}`)).toEqual({ [name]: value });
        },
      ),
    );
  });

  it('are read as the text the client set in a name too', () => {
    fc.assert(
      fc.property(
        scriptText.filter((text) => !text.includes('=') && text !== 'z'),
        scriptText,
        (name, text) => {
          expect(parseCookieHeader(`${asOctets(name)}=${asOctets(text)}; z=1`)).toEqual({
            [name]: text,
            z: '1',
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('lose the spaces and tabs around them, and only those', () => {
    const padding = fc.array(fc.constantFrom(' ', '\t'), { maxLength: 6 }).map((s) => s.join(''));
    fc.assert(
      fc.property(padding, scriptText, padding, (before, text, after) => {
        const header = `a=${before}${asOctets(text)}${after}; z=1`;
        expect(parseCookieHeader(header)).toEqual({ a: text, z: '1' });
      }),
      { numRuns: 500 },
    );
  });

  it('are trimmed in time linear in the header: a value padded with 200,000 spaces', () => {
    // An end-anchored pattern tried at every space of the run took seconds for 64 KB (quadratic
    // work a client chooses); index scans take a pass. The runner's timeout bounds the work here.
    const spaces = ' '.repeat(200_000);
    expect(parseCookieHeader(`a=${asOctets('é')}${spaces}x${spaces}; z=1`)).toEqual({
      a: `é${spaces}x`,
      z: '1',
    });
  });

  it('keep a leading U+FEFF and percent-decode after the UTF-8 reading', () => {
    expect(parseCookieHeader(`a=${asOctets('\ufeffx')}; b=${asOctets('é')}%41`)).toEqual({
      a: '\ufeffx',
      b: 'éA',
    });
  });
});
