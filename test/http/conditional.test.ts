/**
 * Conditional requests (RFC 9110 §13) and the range decision after them (§14), decided by one
 * evaluator for routes and the static router alike.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConditionalRequest,
  evaluatePreconditions,
  evaluateRange,
  hasPreconditions,
  ifRangeAllows,
} from '../../src/http/conditional.js';
import { type HeadersInit, MultiValueHeaders } from '../../src/http/headers.js';

function request(method: string, headers: HeadersInit): ConditionalRequest {
  return { method, headers: new MultiValueHeaders(headers) };
}

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

describe('evaluatePreconditions', () => {
  const current = { etag: '"v2"', lastModified: HOUR_AGO };
  const EARLIER = 'Wed, 15 Jan 2025 09:00:00 GMT';

  it('follows the order of §13.2.2: If-Match before If-None-Match', () => {
    expect(evaluatePreconditions(request('GET', { 'If-Match': '"v2"' }), current)).toBe('proceed');
    expect(evaluatePreconditions(request('PUT', { 'If-Match': '"v1"' }), current)).toBe('failed');
    // A weak tag never passes If-Match (strong comparison, §13.1.1).
    expect(evaluatePreconditions(request('PUT', { 'If-Match': 'W/"v2"' }), current)).toBe('failed');
    const both = request('GET', { 'If-Match': '"v1"', 'If-None-Match': '"v2"' });
    expect(evaluatePreconditions(both, current)).toBe('failed');
  });

  it('answers If-None-Match with 304 on GET and HEAD, 412 on other methods', () => {
    for (const method of ['GET', 'HEAD']) {
      const weak = request(method, { 'If-None-Match': 'W/"v2"' });
      expect(evaluatePreconditions(weak, current)).toBe('not-modified');
    }
    expect(evaluatePreconditions(request('PUT', { 'If-None-Match': '*' }), current)).toBe('failed');
    expect(evaluatePreconditions(request('GET', { 'If-None-Match': '"v1"' }), current)).toBe(
      'proceed',
    );
  });

  it('lets `*` depend on whether a representation exists', () => {
    const missing = { exists: false };
    expect(evaluatePreconditions(request('PUT', { 'If-None-Match': '*' }), missing)).toBe(
      'proceed',
    );
    expect(evaluatePreconditions(request('PUT', { 'If-Match': '*' }), missing)).toBe('failed');
    expect(evaluatePreconditions(request('PUT', { 'If-Match': '*' }), {})).toBe('proceed');
  });

  it('reads a date only without the tag header before it, and ignores a bad or repeated one', () => {
    const unmodified = request('PUT', { 'If-Unmodified-Since': EARLIER });
    expect(evaluatePreconditions(unmodified, current)).toBe('failed');
    const withMatch = request('PUT', { 'If-Match': '"v2"', 'If-Unmodified-Since': EARLIER });
    expect(evaluatePreconditions(withMatch, current)).toBe('proceed');
    expect(evaluatePreconditions(request('GET', { 'If-Modified-Since': IMF }), current)).toBe(
      'not-modified',
    );
    expect(evaluatePreconditions(request('GET', { 'If-Modified-Since': EARLIER }), current)).toBe(
      'proceed',
    );
    // §13.1.3: only GET and HEAD; and If-None-Match takes its place when present.
    expect(evaluatePreconditions(request('POST', { 'If-Modified-Since': IMF }), current)).toBe(
      'proceed',
    );
    const tagFirst = request('GET', { 'If-None-Match': '"v1"', 'If-Modified-Since': IMF });
    expect(evaluatePreconditions(tagFirst, current)).toBe('proceed');
    for (const headers of [
      { 'If-Modified-Since': 'yesterday' },
      [
        ['If-Modified-Since', IMF],
        ['If-Modified-Since', IMF],
      ] as Array<[string, string]>,
    ]) {
      expect(evaluatePreconditions(request('GET', headers), current)).toBe('proceed');
    }
  });

  it('compares a Last-Modified in the future as now, the date that is sent for it (§8.8.2.1)', () => {
    const future = { lastModified: new Date(Date.now() + 365 * 86_400_000) };
    const tomorrow = new Date(Date.now() + 86_400_000).toUTCString();
    const since = request('GET', { 'If-Modified-Since': tomorrow });
    expect(evaluatePreconditions(since, future)).toBe('not-modified');
    const unmodified = request('PUT', { 'If-Unmodified-Since': tomorrow });
    expect(evaluatePreconditions(unmodified, future)).toBe('proceed');
    // Still later than a date in the past.
    const past = request('PUT', { 'If-Unmodified-Since': EARLIER });
    expect(evaluatePreconditions(past, future)).toBe('failed');
  });

  it('hasPreconditions tells a request with If-* headers from one without', () => {
    expect(hasPreconditions(request('GET', { Accept: '*/*' }))).toBe(false);
    expect(hasPreconditions(request('GET', { 'If-Range': '"v1"' }))).toBe(false);
    expect(hasPreconditions(request('GET', { 'If-None-Match': '"v1"' }))).toBe(true);
  });
});

describe('evaluateRange', () => {
  const current = { etag: '"v1"', lastModified: HOUR_AGO };

  it('parses one Range field line against the size', () => {
    expect(evaluateRange(request('GET', {}), current, 26)).toEqual({ kind: 'ignore' });
    expect(evaluateRange(request('GET', { Range: 'bytes=0-1' }), current, 26)).toEqual({
      kind: 'ranges',
      ranges: [{ start: 0, end: 1 }],
    });
    expect(evaluateRange(request('GET', { Range: 'bytes=30-' }), current, 26)).toEqual({
      kind: 'unsatisfiable',
    });
    const twice: Array<[string, string]> = [
      ['Range', 'bytes=0-1'],
      ['Range', 'bytes=0-1'],
    ];
    expect(evaluateRange(request('GET', twice), current, 26)).toEqual({ kind: 'ignore' });
  });

  it('serves the whole representation when If-Range does not hold', () => {
    const stale = request('GET', { Range: 'bytes=0-1', 'If-Range': '"v0"' });
    expect(evaluateRange(stale, current, 26)).toEqual({ kind: 'ignore' });
    const fresh = request('GET', { Range: 'bytes=0-1', 'If-Range': '"v1"' });
    expect(evaluateRange(fresh, current, 26).kind).toBe('ranges');
    // One tag or one date: on two lines, whichever comes first, it never holds.
    for (const lines of [
      ['"v1"', '"v0"'],
      ['"v0"', '"v1"'],
      ['"v1"', '"v1"'],
    ]) {
      const twice = request('GET', [
        ['Range', 'bytes=0-1'],
        ['If-Range', lines[0] as string],
        ['If-Range', lines[1] as string],
      ]);
      expect(evaluateRange(twice, current, 26)).toEqual({ kind: 'ignore' });
    }
  });
});
