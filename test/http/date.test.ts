/**
 * HTTP dates (RFC 9110 §5.6.7): all three formats are read, IMF-fixdate in GMT is written, and
 * nothing a client sends makes the parser throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatHttpDate,
  formatLastModified,
  parseHttpDate,
  toHttpSeconds,
} from '../../src/http/date.js';
import { Response, RestApplication, silentLogger } from '../../src/index.js';

const IMF =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const sample = new Date(Date.UTC(1994, 10, 6, 8, 49, 37));

function atSecond(date: Date): number {
  return Math.floor(date.getTime() / 1000) * 1000;
}

describe('HTTP dates', () => {
  it('reads the three formats of RFC 9110 §5.6.7 as the same instant', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toEqual(sample);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toEqual(sample);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toEqual(sample);
  });

  it('writes IMF-fixdate, always in GMT, without milliseconds', () => {
    expect(formatHttpDate(sample)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(formatHttpDate(new Date('2024-03-01T12:34:56.789+02:00'))).toBe(
      'Fri, 01 Mar 2024 10:34:56 GMT',
    );
  });

  it('rejects dates it cannot write rather than writing something else', () => {
    expect(() => formatHttpDate(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => formatHttpDate(new Date(Date.UTC(10000, 0, 1)))).toThrow(RangeError);
  });

  it('reads years before 100 as written (not as 19xx)', () => {
    expect(parseHttpDate('Sat, 01 Jan 0050 00:00:00 GMT')?.getUTCFullYear()).toBe(50);
  });

  it('reads a two-digit year more than 50 years ahead as the previous century', () => {
    const now = new Date().getUTCFullYear();
    const far = (now + 60) % 100;
    const parsed = parseHttpDate(`Monday, 01-Jan-${String(far).padStart(2, '0')} 00:00:00 GMT`);
    expect(parsed?.getUTCFullYear()).toBe(now + 60 - 100);
  });

  it('refuses malformed and impossible dates (they are then ignored as preconditions)', () => {
    for (const text of [
      '',
      'yesterday',
      'Sun, 06 Nov 1994 08:49:37 PST',
      'Sun, 6 Nov 1994 08:49:37 GMT',
      'Sun, 31 Feb 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 24:00:00 GMT',
      'Sun, 06 Foo 1994 08:49:37 GMT',
      '1994-11-06T08:49:37Z',
      'Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT',
    ]) {
      expect(parseHttpDate(text), text).toBeUndefined();
    }
    expect(parseHttpDate(undefined)).toBeUndefined();
  });

  it('compares at one-second precision', () => {
    expect(toHttpSeconds(new Date(1999))).toBe(1);
    expect(toHttpSeconds(new Date(1000))).toBe(toHttpSeconds(new Date(1999)));
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const parsed = parseHttpDate(text);
        if (parsed !== undefined) expect(Number.isNaN(parsed.getTime())).toBe(false);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            'Sun',
            ', ',
            '06',
            ' Nov ',
            '1994',
            ' ',
            '08:49:37',
            'GMT',
            '-',
            '99',
            '60',
            '00',
          ),
          {
            maxLength: 12,
          },
        ),
        (pieces) => {
          parseHttpDate(pieces.join(''));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('round-trips: format then parse gives the date at one-second precision', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const text = formatHttpDate(date);
          expect(text).toMatch(IMF);
          expect(parseHttpDate(text)?.getTime()).toBe(atSecond(date));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('round-trips through the obsolete formats too', () => {
    const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1990-01-01T00:00:00Z'),
          max: new Date('2060-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const imf = formatHttpDate(date);
          const [, day, month, year, time] = /^\w+, (\d{2}) (\w{3}) (\d{4}) (\S+) GMT$/.exec(
            imf,
          ) as RegExpExecArray;
          const asctime = `${imf.slice(0, 3)} ${month} ${String(Number(day)).padStart(2, ' ')} ${time} ${year}`;
          expect(parseHttpDate(asctime)?.getTime()).toBe(atSecond(date));
          const rfc850 = `${weekdays[date.getUTCDay()]}, ${day}-${month}-${(year as string).slice(2)} ${time} GMT`;
          // Two-digit years are within 50 years of now for this range, so they read back exactly.
          expect(parseHttpDate(rfc850)?.getTime()).toBe(atSecond(date));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('Last-Modified is never later than the response (RFC 9110 §8.8.2.1)', () => {
  it('keeps a past date and writes now for a future one', () => {
    expect(formatLastModified(sample)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
    const before = toHttpSeconds(new Date());
    const written = parseHttpDate(formatLastModified(new Date(Date.now() + 86_400_000)));
    const after = toHttpSeconds(new Date());
    expect(toHttpSeconds(written as Date)).toBeGreaterThanOrEqual(before);
    expect(toHttpSeconds(written as Date)).toBeLessThanOrEqual(after);
  });

  it('holds for a handler that sets a future date', async () => {
    const app = new RestApplication({ logger: silentLogger });
    const tomorrow = new Date(Date.now() + 86_400_000);
    app.get('/a', () => new Response(200, 'a', { lastModified: tomorrow }));
    app.get('/b', () => new Response(200, 'b').setLastModified(tomorrow));
    for (const path of ['/a', '/b']) {
      const header = (await app.request(path)).headers.get('last-modified') as string;
      expect((parseHttpDate(header) as Date).getTime()).toBeLessThanOrEqual(Date.now());
    }
  });
});
