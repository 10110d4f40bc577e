import { describe, expect, it } from 'vitest';
import { freshRequestId, requestIdFor } from '../../../src/app/features/request-id.js';

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
});
