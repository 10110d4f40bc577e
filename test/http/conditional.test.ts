/**
 * If-Range (RFC 9110 §13.1.5), decided by one function for routes and the static router alike.
 */
import { describe, expect, it } from 'vitest';
import { ifRangeAllows } from '../../src/http/conditional.js';

const HOUR_AGO = new Date(Date.UTC(2025, 0, 15, 10, 0, 0));
const NOW = Date.UTC(2025, 0, 15, 11, 0, 0, 500);
const IMF = 'Wed, 15 Jan 2025 10:00:00 GMT';
const validators = { etag: '"v1"', lastModified: HOUR_AGO };

describe('ifRangeAllows', () => {
  it('matches an entity tag only by the strong comparison', () => {
    expect(ifRangeAllows('"v1"', validators, NOW)).toBe(true);
    expect(ifRangeAllows('  "v1" ', validators, NOW)).toBe(true);
    expect(ifRangeAllows('"v2"', validators, NOW)).toBe(false);
    // §13.1.5: a weak tag never matches, whichever side is weak.
    expect(ifRangeAllows('W/"v1"', validators, NOW)).toBe(false);
    expect(ifRangeAllows('"v1"', { etag: 'W/"v1"', lastModified: HOUR_AGO }, NOW)).toBe(false);
    expect(ifRangeAllows('"v1"', { lastModified: HOUR_AGO }, NOW)).toBe(false);
  });

  it('never matches what is neither an entity tag nor an HTTP date', () => {
    for (const value of ['', 'W/v1', 'W/', 'w/"v1"', '"v1', 'v1', '*', 'W/ "v1"', `W/${IMF}`]) {
      expect(ifRangeAllows(value, validators, NOW), value).toBe(false);
    }
  });

  it('matches a date equal to Last-Modified, in any of the three date formats', () => {
    expect(ifRangeAllows(IMF, validators, NOW)).toBe(true);
    expect(ifRangeAllows('Wednesday, 15-Jan-25 10:00:00 GMT', validators, NOW)).toBe(true);
    expect(ifRangeAllows('Wed Jan 15 10:00:00 2025', validators, NOW)).toBe(true);
    expect(ifRangeAllows('Wed, 15 Jan 2025 10:00:01 GMT', validators, NOW)).toBe(false);
    expect(ifRangeAllows('Wed, 15 Jan 2025 09:59:59 GMT', validators, NOW)).toBe(false);
    expect(ifRangeAllows(IMF, { etag: '"v1"' }, NOW)).toBe(false);
  });

  it('never matches a date that is not a strong validator (§8.8.2.2)', () => {
    // Modified within the current second: it may change again in that second.
    const justNow = new Date(Date.UTC(2025, 0, 15, 11, 0, 0, 100));
    const sameSecond = 'Wed, 15 Jan 2025 11:00:00 GMT';
    expect(ifRangeAllows(sameSecond, { lastModified: justNow }, NOW)).toBe(false);
    expect(ifRangeAllows(sameSecond, { lastModified: justNow }, NOW + 1000)).toBe(true);
    // A Last-Modified in the future (a skewed clock) is no strong validator either.
    const future = new Date(NOW + 60_000);
    expect(ifRangeAllows('Wed, 15 Jan 2025 11:01:00 GMT', { lastModified: future }, NOW)).toBe(
      false,
    );
  });
});
