/**
 * Route-level ETag / Last-Modified providers (docs/http-semantics.md) and the way-out
 * preconditions: what runs when, and what a route without providers pays.
 */
import { describe, expect, it } from 'vitest';
import { Response, RestApplication, SetupError, silentLogger } from '../../../src/index.js';

const DATE = new Date(Date.UTC(2024, 5, 1, 12, 0, 0));

describe('route-level conditional providers', () => {
  it('compile to nothing for a route without them', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/plain', () => 'plain');
    app.get('/tagged', () => 'tagged').etag(() => 'v1');
    const table = app.routingTable();
    const plain = table.matcher.match('/plain');
    const tagged = table.matcher.match('/tagged');
    if (typeof plain !== 'object' || typeof tagged !== 'object') throw new Error('no match');
    expect(plain.leaf.byMethod.get('GET')?.value.features).toBeUndefined();
    expect(tagged.leaf.byMethod.get('GET')?.value.features?.conditional).toBeDefined();
  });

  it('run before the handler, may be asynchronous and may inject dependencies', async () => {
    const order: string[] = [];
    const app = new RestApplication({ logger: silentLogger }).dependency('version', () => {
      order.push('version');
      return 7;
    });
    app
      .get('/items/{id}', ({ id, version }) => {
        order.push('handler');
        return { id, version };
      })
      .etag(async ({ id, version }) => {
        order.push('etag');
        return `${id}-${version}`;
      })
      .lastModified(() => {
        order.push('lastModified');
        return DATE;
      });
    const response = await app.request('/items/x');
    expect(response.headers.get('etag')).toBe('"x-7"');
    expect(response.headers.get('last-modified')).toBe('Sat, 01 Jun 2024 12:00:00 GMT');
    // The dependency is resolved once per request, shared by the provider and the handler.
    expect(order).toEqual(['version', 'etag', 'lastModified', 'handler']);
    order.length = 0;
    const notModified = await app.request('/items/x', { headers: { 'If-None-Match': '"x-7"' } });
    expect(notModified.statusCode).toBe(304);
    expect(order).toEqual(['version', 'etag', 'lastModified']);
  });

  it('give 412 before the handler of an unsafe method runs', async () => {
    let writes = 0;
    const app = new RestApplication({ logger: silentLogger });
    app
      .patch('/doc', () => {
        writes++;
        return { ok: true };
      })
      .etag(() => 'current');
    const stale = await app.request('/doc', { method: 'PATCH', headers: { 'If-Match': '"old"' } });
    expect(stale.statusCode).toBe(412);
    expect(writes).toBe(0);
    const fresh = await app.request('/doc', {
      method: 'PATCH',
      headers: { 'If-Match': '"current"' },
    });
    expect(fresh.statusCode).toBe(200);
    expect(writes).toBe(1);
    // The tag computed before the handler is stale once it ran: an unsafe method's response
    // does not get it (RFC 9110 §9.3.4).
    expect(fresh.headers.has('etag')).toBe(false);
  });

  it('let a 404 from resourceExists win over a precondition (RFC 9110 §13.2.1)', async () => {
    const app = new RestApplication({ logger: silentLogger }).resourceExists('doc', () => null);
    app.put('/doc', ({ doc }) => doc).etag(({ doc }) => String(doc));
    const response = await app.request('/doc', { method: 'PUT', headers: { 'If-Match': '"x"' } });
    expect(response.statusCode).toBe(404);
  });

  it('turn a provider that returns the wrong type into a logged 500', async () => {
    const errors: unknown[] = [];
    const app = new RestApplication({
      logger: { ...silentLogger, error: (_message, fields) => errors.push(fields) },
    });
    app.get('/bad', () => 'x').etag((() => 42) as never);
    const response = await app.request('/bad');
    expect(response.statusCode).toBe(500);
    expect(errors).toHaveLength(1);
  });

  it('name the route when a provider injects an unknown name', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => 'x').etag((({ nope }: { nope: string }) => nope) as never);
    await expect(app.startup()).rejects.toThrow(SetupError);
    await expect(app.startup()).rejects.toThrow(/GET \/x etag\(\).*"nope"/);
  });

  it('answer a pre-handler 304 with Vary: Accept when the 200 would have it', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => ({ a: 1 })).etag(() => 'v');
    const response = await app.request('/x', { headers: { 'If-None-Match': '"v"' } });
    expect(response.statusCode).toBe(304);
    expect(response.headers.getAll('vary')).toEqual(['Accept']);
    expect(response.headers.get('etag')).toBe('"v"');
    expect(response.headers.has('last-modified')).toBe(false);
  });

  it('give the 200 the Vary: Accept of their 304, also when the handler skips the renderers', async () => {
    // RFC 9110 §15.4.5: the 304 answered before the handler stands for this 200.
    const app = new RestApplication({ logger: silentLogger });
    app.get('/json', () => Response.json({ a: 1 })).etag(() => 'j');
    app.get('/bytes', () => new Uint8Array([1, 2])).etag(() => 'b');
    app
      .get('/own', () => new Response(200, 'x', { headers: { Vary: 'Origin' } }))
      .lastModified(() => DATE);
    app.get('/rendered', () => ({ a: 1 })).etag(() => 'r');
    for (const [path, vary] of [
      ['/json', ['Accept']],
      ['/bytes', ['Accept']],
      ['/own', ['Origin, Accept']],
      ['/rendered', ['Accept']],
    ] as const) {
      const ok = await app.request(path);
      expect([ok.statusCode, ok.headers.getAll('vary')], path).toEqual([200, vary]);
      const head = await app.request(path, { method: 'HEAD' });
      expect(head.headers.getAll('vary'), path).toEqual(vary);
    }
    const notModified = await app.request('/json', { headers: { 'If-None-Match': '"j"' } });
    expect([notModified.statusCode, notModified.headers.getAll('vary')]).toEqual([304, ['Accept']]);
  });

  it('send Last-Modified on a 304 only when there is no ETag', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => 'x').lastModified(() => DATE);
    const response = await app.request('/x', {
      headers: { 'If-Modified-Since': 'Sat, 01 Jun 2024 12:00:00 GMT' },
    });
    expect(response.statusCode).toBe(304);
    expect(response.headers.get('last-modified')).toBe('Sat, 01 Jun 2024 12:00:00 GMT');
  });

  it('compare a future lastModified() as the time of the response, which is what is sent', async () => {
    // RFC 9110 §8.8.2.1: a date a year ahead (a skewed clock) is sent as now; a client's date a
    // day ahead is later than that, so the resource is unmodified since then.
    const nextYear = new Date(Date.now() + 365 * 86_400_000);
    const tomorrow = new Date(Date.now() + 86_400_000).toUTCString();
    let runs = 0;
    const app = new RestApplication({ logger: silentLogger });
    app
      .get('/doc', () => {
        runs++;
        return 'doc';
      })
      .lastModified(() => nextYear);
    app.put('/doc', () => undefined).lastModified(() => nextYear);
    const sent = (await app.request('/doc')).headers.get('last-modified') as string;
    expect(Date.parse(sent)).toBeLessThanOrEqual(Date.now());
    const notModified = await app.request('/doc', { headers: { 'If-Modified-Since': tomorrow } });
    expect([notModified.statusCode, runs]).toEqual([304, 1]);
    const put = await app.request('/doc', {
      method: 'PUT',
      headers: { 'If-Unmodified-Since': tomorrow },
    });
    expect(put.statusCode).toBe(204);
  });

  it('ignore If-Modified-Since sent twice', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => 'x').lastModified(() => DATE);
    const since = 'Sat, 01 Jun 2024 12:00:00 GMT';
    const response = await app.request('/x', {
      headers: [
        ['If-Modified-Since', since],
        ['If-Modified-Since', since],
      ],
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('response-level validators', () => {
  it('read a Last-Modified header set as text', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => ['x', 200, { 'Last-Modified': 'Sat, 01 Jun 2024 12:00:00 GMT' }]);
    const response = await app.request('/x', {
      headers: { 'If-Modified-Since': 'Sat, 01 Jun 2024 12:00:00 GMT' },
    });
    expect(response.statusCode).toBe(304);
  });

  it('drop the representation headers from a 304 but keep the others', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () =>
      new Response(200, 'body', {
        headers: { 'Content-Language': 'en', Expires: 'Sat, 01 Jun 2030 12:00:00 GMT' },
        contentType: 'text/plain',
      }).setEtag('a'),
    );
    const response = await app.request('/x', { headers: { 'If-None-Match': '"a"' } });
    expect(response.statusCode).toBe(304);
    expect(response.body).toBeUndefined();
    expect(response.headers.has('content-type')).toBe(false);
    expect(response.headers.has('content-language')).toBe(false);
    expect(response.headers.has('content-length')).toBe(false);
    expect(response.headers.get('expires')).toBe('Sat, 01 Jun 2030 12:00:00 GMT');
  });
});

describe('validators from providers on the way out', () => {
  it('are sent once, formatted once, and never over the handler’s own', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/spaced', () => 'x').etag(() => 'a b');
    app.get('/own', () => new Response(200, 'x', { headers: { ETag: '"mine"' } })).etag(() => 'v');
    const spaced = await app.request('/spaced');
    expect(spaced.headers.getAll('etag')).toEqual(['"a%20b"']);
    expect(spaced.etag).toBe('"a%20b"');
    const again = await app.request('/spaced', { headers: { 'If-None-Match': '"a%20b"' } });
    expect(again.statusCode).toBe(304);
    const own = await app.request('/own');
    expect(own.headers.getAll('etag')).toEqual(['"mine"']);
  });
});

describe('a tag per representation, from the negotiated mediaType', () => {
  function notesApp(seen: unknown[]) {
    const app = new RestApplication({ logger: silentLogger });
    app.onRequest(({ mediaType }) => void seen.push(['onRequest', mediaType]));
    app
      .get('/notes/{id}', ({ id, mediaType }) => {
        seen.push(['handler', mediaType]);
        return { id, text: 'milk' };
      })
      .provides('text/html; charset=utf-8', ({ result }) => `<pre>${JSON.stringify(result)}</pre>`)
      .etag(({ mediaType }) => (mediaType === 'application/json' ? '3' : '3-html'));
    return app;
  }

  it('gives the providers and the handler the chosen media type, and nothing before negotiation', async () => {
    const seen: unknown[] = [];
    const app = notesApp(seen);
    const json = await app.request('/notes/7');
    expect(json.headers.get('etag')).toBe('"3"');
    const html = await app.request('/notes/7', { headers: { Accept: 'text/html' } });
    expect(html.headers.get('etag')).toBe('"3-html"');
    expect(seen).toEqual([
      ['onRequest', undefined],
      ['handler', 'application/json'],
      ['onRequest', undefined],
      ['handler', 'text/html'],
    ]);
  });

  it("never answers one representation's validators for another's", async () => {
    const app = notesApp([]);
    const html = { Accept: 'text/html' };
    // The JSON tag does not make the page a 304, nor splice a range of it onto JSON bytes.
    const revalidated = await app.request('/notes/7', {
      headers: { ...html, 'If-None-Match': '"3"' },
    });
    expect(revalidated.statusCode).toBe(200);
    const resumed = await app.request('/notes/7', {
      headers: { ...html, Range: 'bytes=5-', 'If-Range': '"3"' },
    });
    expect(resumed.statusCode).toBe(200);
    const own = await app.request('/notes/7', {
      headers: { ...html, 'If-None-Match': '"3-html"' },
    });
    expect(own.statusCode).toBe(304);
  });
});
