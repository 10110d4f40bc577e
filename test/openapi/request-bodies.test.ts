/**
 * What the document says about request bodies, checked against what the application and the
 * typed client do with them: a body is optional only where its validators accept `undefined`,
 * and a GET or HEAD route documents none (RFC 9110 §9.3.1).
 */
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { createClient } from '../../src/client/index.js';
import { type Logger, RestApplication, silentLogger } from '../../src/index.js';
import { openapi } from '../../src/openapi/index.js';

const info = { title: 't', version: '1' };

describe('a body validator of optional fields', () => {
  it('requires a body, in the document, in the application and in the client', async () => {
    const api = new RestApplication({ logger: silentLogger })
      .validates('prefs', z.object({ theme: z.string().optional() }))
      .validates('maybePrefs', z.object({ theme: z.string().optional() }).optional())
      .withRoutes((r) => [
        r.put('/prefs', ({ prefs }) => prefs).uses('prefs'),
        r
          .patch('/prefs', ({ maybePrefs }) => maybePrefs ?? { theme: 'default' })
          .uses('maybePrefs'),
      ]);
    const doc = openapi(api, { info });
    expect(doc.paths['/prefs']?.put?.requestBody?.required).toBe(true);
    expect(doc.paths['/prefs']?.patch?.requestBody?.required).toBe(false);
    const client = createClient<typeof api>({ app: api });
    // The types require `json` here (test/client/types.test.ts): without it, the answer is 422.
    const untyped = client.put as (path: string) => ReturnType<typeof client.put<'/prefs'>>;
    expect((await untyped('/prefs')).status).toBe(422);
    expect(await client.put('/prefs', { json: {} })).toMatchObject({ status: 200, data: {} });
    expect(await client.patch('/prefs')).toMatchObject({
      status: 200,
      data: { theme: 'default' },
    });
  });
});

describe('a GET route that reads a body', () => {
  it('documents no request body, and says so once in the log', () => {
    const warn = vi.fn();
    const logger: Logger = { ...silentLogger, warn };
    const app = new RestApplication({ logger }).validates(
      'filters',
      z.object({ tag: z.string() }).optional(),
    );
    app.get('/search', ({ filters }) => filters ?? null);
    app.get('/echo', ({ body }) => body);
    app.post('/search', ({ filters }) => filters ?? null);
    const doc = openapi(app, { info });
    openapi(app, { info });
    const get = doc.paths['/search']?.get;
    expect(get?.requestBody).toBeUndefined();
    // Its validator still runs (and may answer 422); no body, so no 400, 413 or 415.
    expect(Object.keys(get?.responses ?? {})).toEqual(['200', '422']);
    expect(doc.paths['/echo']?.get?.requestBody).toBeUndefined();
    expect(doc.paths['/search']?.post?.requestBody).toEqual({
      required: false,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/filters' } } },
    });
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      'OpenAPI: GET /search reads a request body, which a GET request has no defined use for (RFC 9110 §9.3.1) and fetch cannot send; none is documented: read the input from the query instead',
      'OpenAPI: GET /echo reads a request body, which a GET request has no defined use for (RFC 9110 §9.3.1) and fetch cannot send; none is documented: read the input from the query instead',
    ]);
  });

  it('is called by the typed client without a body', async () => {
    const api = new RestApplication({ logger: silentLogger })
      .validates('filters', z.object({ tag: z.string() }).optional())
      .withRoutes((r) => [
        r.get('/search', ({ filters }) => ({ tag: filters?.tag ?? null })).uses('filters'),
      ]);
    const client = createClient<typeof api>({ app: api });
    expect(await client.get('/search')).toMatchObject({ status: 200, data: { tag: null } });
  });
});
