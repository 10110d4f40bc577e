/**
 * The same If-Range header is judged the same way by a route and by the static router
 * (RFC 9110 §13.1.5): both ask the one function in src/http/conditional.ts.
 */
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatHttpDate } from '../../src/http/date.js';
import { Response } from '../../src/index.js';
import { StaticRouter } from '../../src/static/index.js';
import { createFixture, type Fixture, quietApp, send } from './helpers.js';

const TEXT = 'abcdefghijklmnopqrstuvwxyz';
const PAST = new Date('2024-03-01T12:00:00Z');
const FRESH = new Date('2025-06-01T08:30:00.200Z');

let fixture: Fixture;
let app: ReturnType<typeof quietApp>;

/** The file's validators, and a route serving the same bytes with the same validators. */
function mirror(name: string): { etag: string; lastModified: string } {
  const file = join(fixture.root, name);
  const info = statSync(file);
  const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs * 1000).toString(16)}"`;
  const lastModified = formatHttpDate(info.mtime);
  app.get(`/route/${name}`, () => {
    const response = new Response(200, TEXT, { contentType: 'text/plain' });
    response.headers.set('ETag', etag);
    response.setLastModified(info.mtime);
    return response;
  });
  return { etag, lastModified };
}

let old: { etag: string; lastModified: string };
let fresh: { etag: string; lastModified: string };

beforeAll(() => {
  fixture = createFixture();
  writeFileSync(join(fixture.root, 'old.txt'), TEXT);
  utimesSync(join(fixture.root, 'old.txt'), PAST, PAST);
  writeFileSync(join(fixture.root, 'fresh.txt'), TEXT);
  utimesSync(join(fixture.root, 'fresh.txt'), FRESH, FRESH);
  app = quietApp();
  app.mount('/static', new StaticRouter(fixture.root));
  old = mirror('old.txt');
  fresh = mirror('fresh.txt');
});
afterAll(() => fixture.remove());

async function statuses(name: string, ifRange: string): Promise<[number, number]> {
  const headers = { Range: 'bytes=0-1', 'If-Range': ifRange };
  const route = await send(app, `/route/${name}`, { headers });
  const file = await send(app, `/static/${name}`, { headers });
  return [route.status, file.status];
}

describe('If-Range on a route and on a static file', () => {
  it('the route serves what the static router serves, with the same validators', async () => {
    const route = await send(app, '/route/old.txt');
    const file = await send(app, '/static/old.txt');
    expect(route.headers.get('etag')).toBe(file.headers.get('etag'));
    expect(route.headers.get('last-modified')).toBe(file.headers.get('last-modified'));
  });

  it('agree on tags, weak tags, near-tags, dates and garbage', async () => {
    const bare = old.etag.slice(1, -1);
    const cases: Array<[string, number]> = [
      [old.etag, 206],
      [` ${old.etag}  `, 206],
      [old.lastModified, 206],
      [`W/${old.etag}`, 200],
      [`w/${old.etag}`, 200],
      [`W/${bare}`, 200],
      [`W/ ${old.etag}`, 200],
      [`W/${old.lastModified}`, 200],
      [bare, 200],
      ['"other"', 200],
      [formatHttpDate(new Date(PAST.getTime() + 1000)), 200],
      ['Thu, 01 Jan 1970 00:00:00 GMT', 200],
      ['garbage', 200],
    ];
    for (const [value, expected] of cases) {
      expect(await statuses('old.txt', value), value).toEqual([expected, expected]);
    }
  });

  it('agree on any header value (property)', async () => {
    const value = fc.oneof(
      fc.constantFrom(old.etag, `W/${old.etag}`, old.lastModified, `W/${old.etag.slice(1)}`),
      fc
        .tuple(fc.constantFrom('', 'W/', 'W', 'w/', '"', ' '), fc.string({ maxLength: 12 }))
        .map(([prefix, rest]) => prefix + rest),
    );
    await fc.assert(
      fc.asyncProperty(value, async (ifRange) => {
        const [route, file] = await statuses('old.txt', ifRange.replace(/[\r\n\0]/g, ''));
        expect(route).toBe(file);
      }),
      { numRuns: 100 },
    );
  });

  it('a Last-Modified of the current second is no strong validator: both send it all', async () => {
    // The file changed 200 ms into this second: it may change again before the second is over,
    // so its date cannot prove the client's copy is the current one (RFC 9110 §8.8.2.2).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(FRESH.getTime() + 300);
      expect(await statuses('fresh.txt', fresh.lastModified)).toEqual([200, 200]);
      // Its entity tag is strong whenever it was made.
      expect(await statuses('fresh.txt', fresh.etag)).toEqual([206, 206]);
      // Once the second is over, the date is a strong validator.
      vi.setSystemTime(FRESH.getTime() + 1300);
      expect(await statuses('fresh.txt', fresh.lastModified)).toEqual([206, 206]);
    } finally {
      vi.useRealTimers();
    }
  });
});
