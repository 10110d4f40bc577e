/**
 * The typed client refuses an option name it does not know (docs/openapi.md), at creation and
 * per call: a misspelt `query` would send the request without it, a misspelt `headers` without
 * its credentials. And options it cannot send together: `json` and `form`, two bodies.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { RestApplication, silentLogger } from '../../src/index.js';

// Built from a variable, as options from elsewhere are.
const options = (value: object): never => value as never;

const api = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
  r.get('/search', ({ queryParams }) => ({ q: queryParams.q ?? null })),
]);

describe('createClient()', () => {
  it('refuses a misspelt option, in process and over fetch', () => {
    expect(() => createClient(options({ app: api, header: {} }))).toThrow(
      new TypeError('createClient(): unknown option "header"; the options are app, headers'),
    );
    expect(() => createClient(options({ baseUrl: 'http://127.0.0.1:1', fetchh: fetch }))).toThrow(
      /unknown option "fetchh"; the options are baseUrl, fetch, headers/,
    );
  });

  it('refuses a misspelt call option, and takes the ones it knows', async () => {
    const client = createClient({ app: api });
    await expect(client.get('/search', options({ qeury: { q: 'x' } }))).rejects.toThrow(
      'GET /search: unknown option "qeury"; the options are params, query, json, form, headers, signal',
    );
    const found = await client.get('/search', { query: { q: 'x' }, headers: { 'x-a': '1' } });
    expect(found).toMatchObject({ status: 200, data: { q: 'x' } });
  });

  it('refuses json and form together rather than send one of them', async () => {
    const bodies = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
      r.post('/echo', ({ body }) => String(body)),
    ]);
    const client = createClient({ app: bodies });
    await expect(
      client.post('/echo', options({ json: { a: 1 }, form: { a: '1' } })),
    ).rejects.toThrow(new TypeError('POST /echo: json and form cannot both be sent; give one'));
    expect(await client.post('/echo', { form: { a: '1' } })).toMatchObject({ data: 'a=1' });
  });
});
