/**
 * `response.etag` is a public field a handler may assign directly: whatever it holds goes out as
 * an entity tag (RFC 9110 §8.8.3), formatted as `setEtag()` formats it, so a CR or LF from a
 * client-chosen value never splits the response, in process or through an adapter.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { Response, RestApplication, silentLogger } from '../../../src/index.js';
import { v2Event } from '../../adapters/aws/fixtures.js';

function taggingApp() {
  const app = new RestApplication({ logger: silentLogger });
  app.get('/doc', ({ queryParams }) => {
    const response = new Response(200, 'x');
    response.etag = queryParams.v;
    return response;
  });
  return app;
}

/** Whether `text` has no lone surrogate (what a query string can carry). */
function isWellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

const ENTITY_TAG = /^(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

describe('response.etag assigned directly', () => {
  it('is sent as an entity tag: kept when it is one, quoted and percent-encoded otherwise', async () => {
    const app = taggingApp();
    const tag = async (value: string) =>
      (await app.request(`/doc?v=${encodeURIComponent(value)}`)).headers.get('etag');
    expect(await tag('"v1"')).toBe('"v1"');
    expect(await tag('W/"v1"')).toBe('W/"v1"');
    expect(await tag('v1')).toBe('"v1"');
    expect(await tag('1\r\nSet-Cookie: session=attacker')).toBe(
      '"1%0D%0ASet-Cookie%3A%20session%3Dattacker"',
    );
  });

  it('answers 304 to the tag it sent', async () => {
    const app = taggingApp();
    const first = await app.request('/doc?v=a%20b');
    const etag = first.headers.get('etag') as string;
    const again = await app.request('/doc?v=a%20b', { headers: { 'If-None-Match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
  });

  it('carries no CR or LF into a Lambda result', async () => {
    const adapter = new CloudGatewayAdapter(taggingApp(), { metricsPublisher: null });
    const result = await adapter.handleEvent(
      v2Event({ method: 'GET', path: '/doc?v=1%0d%0aSet-Cookie:%20session=attacker' }),
    );
    expect(result.statusCode).toBe(200);
    expect(result.headers?.ETag).toBe('"1%0D%0ASet-Cookie%3A%20session%3Dattacker"');
    expect(result.cookies).toBeUndefined();
  });

  it('is a well-formed entity tag whatever string it was given', async () => {
    const app = taggingApp();
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 30 }), async (value) => {
        fc.pre(isWellFormed(value));
        const response = await app.request(`/doc?v=${encodeURIComponent(value)}`);
        expect(response.statusCode).toBe(200);
        expect(response.headers.get('etag')).toMatch(ENTITY_TAG);
      }),
      { numRuns: 300 },
    );
  });
});
