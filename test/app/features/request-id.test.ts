import { describe, expect, it } from 'vitest';
import { freshRequestId, requestIdFor } from '../../../src/app/features/request-id.js';
import { MultiValueHeaders, Request, RestApplication, silentLogger } from '../../../src/index.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are fresh UUIDs, all distinct', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => freshRequestId()));
    expect(ids.size).toBe(10_000);
    for (const id of [...ids].slice(0, 100)) expect(id).toMatch(UUID_V4);
  });

  it('trust a client id only when well-formed', () => {
    expect(requestIdFor('abc-1.2_3')).toBe('abc-1.2_3');
    expect(requestIdFor('x'.repeat(128))).toBe('x'.repeat(128));
    for (const bad of ['', 'x'.repeat(129), 'a b', 'a\nb', '<script>', 'ä']) {
      expect(requestIdFor(bad)).toMatch(UUID_V4);
    }
    expect(requestIdFor(undefined)).toMatch(UUID_V4);
  });

  it('take a client id sent on one line only: two lines are a list, not an id', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/', ({ requestId }) => requestId);
    const idOf = async (headers: MultiValueHeaders) =>
      (await app.execute(new Request({ method: 'GET', path: '/', headers }))).body;
    // As a Node server hands them over (raw pairs), and as built in process.
    expect(await idOf(MultiValueHeaders.fromRawPairs(['X-Request-ID', 'one']))).toBe('one');
    for (const headers of [
      MultiValueHeaders.fromRawPairs(['X-Request-ID', 'one', 'x-request-id', 'two']),
      new MultiValueHeaders([
        ['x-request-id', 'one'],
        ['x-request-id', 'two'],
      ]),
    ]) {
      expect(await idOf(headers)).toMatch(UUID_V4);
    }
  });
});
