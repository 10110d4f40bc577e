/**
 * A `[body, status, headers]` tuple whose headers name a Content-Type is sent as that type
 * (RFC 9110 §8.3; docs/application.md, "Handler results"): text and bytes as they are, data as
 * JSON under a JSON type, anything else a logged 500. Never re-rendered by the negotiated
 * renderer under a label that no longer describes it.
 */
import { describe, expect, it } from 'vitest';
import { MultiValueHeaders, RestApplication } from '../../../src/index.js';
import { bodyBytes } from '../../../src/response.js';
import { recordingLogger } from '../../support/recording-logger.js';

const text = async (response: Parameters<typeof bodyBytes>[0]) =>
  new TextDecoder().decode(await bodyBytes(response));

describe('a tuple that names its Content-Type', () => {
  it('sends text as it is, in every header form, whatever Accept prefers', async () => {
    const app = new RestApplication();
    const csv = 'a,b\n1,2\n';
    app.get('/object', () => [csv, 200, { 'content-TYPE': 'text/csv' }]);
    app.get('/multi', () => [csv, 200, new MultiValueHeaders([['Content-Type', 'text/csv']])]);
    app.get('/headers', () => [csv, 200, new Headers({ 'Content-Type': 'text/csv' })]);
    for (const path of ['/object', '/multi', '/headers']) {
      for (const accept of ['application/json', 'text/html', '*/*']) {
        const response = await app.request(path, { headers: { Accept: accept } });
        expect(response.headers.get('content-type'), `${path} ${accept}`).toBe('text/csv');
        expect(response.contentType, `${path} ${accept}`).toBe('text/csv');
        expect(await text(response), `${path} ${accept}`).toBe(csv);
      }
    }
  });

  it('sends bytes as they are, labelled as the tuple says', async () => {
    const app = new RestApplication();
    app.get('/png', () => [new Uint8Array([0x89, 0x50]), 200, { 'Content-Type': 'image/png' }]);
    const response = await app.request('/png', { headers: { Accept: 'application/json' } });
    expect(response.contentType).toBe('image/png');
    expect([...(await bodyBytes(response))]).toEqual([0x89, 0x50]);
  });

  it('sends data as JSON when the type is JSON, from an error handler too', async () => {
    const app = new RestApplication();
    app.get('/api', () => [{ a: 1 }, 200, { 'Content-Type': 'application/vnd.api+json' }]);
    app.errorHandler(404, ({ error }) => [
      { title: error.message },
      404,
      { 'Content-Type': 'application/problem+json' },
    ]);
    const api = await app.request('/api', { headers: { Accept: 'text/html' } });
    expect(api.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(JSON.parse(await text(api))).toEqual({ a: 1 });
    const missing = await app.request('/nowhere', { headers: { Accept: 'text/html' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.parse(await text(missing))).toEqual({ title: 'Not Found' });
  });

  it('answers data under a type that is not JSON with a logged 500 saying what to do', async () => {
    const { logger, logged } = recordingLogger();
    const app = new RestApplication({ logger });
    app.get('/rows', () => [[{ a: 1 }], 200, { 'Content-Type': 'text/csv' }]);
    const response = await app.request('/rows', { headers: { Accept: 'text/html' } });
    expect(response.statusCode).toBe(500);
    expect(logged()).toMatch(
      /tuple names Content-Type text\/csv and has an array as its body.*provides\('text\/csv', renderer\)/,
    );
  });

  it('refuses what JSON cannot represent under a JSON type, as the JSON renderer does', async () => {
    const { logger, logged } = recordingLogger();
    const app = new RestApplication({ logger });
    app.get('/set', () => [new Set([1]) as unknown, 200, { 'Content-Type': 'application/json' }]);
    const response = await app.request('/set');
    expect(response.statusCode).toBe(500);
    expect(logged()).toMatch(/a Set, which JSON sends as \{\}/);
  });

  it('leaves a tuple without Content-Type to the negotiated renderer', async () => {
    const app = new RestApplication();
    app.get('/page', () => ['<b>', 200, { 'X-Custom': 'yes' }]);
    const response = await app.request('/page', { headers: { Accept: 'text/html' } });
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await text(response)).toBe('&lt;b&gt;');
  });
});
