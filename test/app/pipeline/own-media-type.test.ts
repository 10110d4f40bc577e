/**
 * `provides(type)` without a renderer: the route's handler answers with that type itself (a
 * file, bytes, a Response of that type, or its text), so a request for it is let through
 * negotiation to the handler, and any other unacceptable request is still a 406 before it
 * (docs/application.md, "Content negotiation").
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Response, RestApplication } from '../../../src/index.js';
import { bodyBytes } from '../../../src/response.js';
import { recordingLogger } from '../../support/recording-logger.js';

const text = async (response: Parameters<typeof bodyBytes>[0]) =>
  new TextDecoder().decode(await bodyBytes(response));

describe('a route that provides a type without a renderer', () => {
  it('answers a request for it with the file, bytes or Response its handler returns', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'own-type-'));
    writeFileSync(join(folder, 'report.pdf'), '%PDF-1.4');
    const app = new RestApplication({ renderers: 'json' });
    let ran = 0;
    app
      .get('/report.pdf', () => {
        ran++;
        return Response.file(join(folder, 'report.pdf'));
      })
      .provides('application/pdf');
    app
      .get('/img', () => new Response(200, new Uint8Array([0x89]), { contentType: 'image/png' }))
      .provides('image/png');
    app
      .get(
        '/relay',
        () => new globalThis.Response('GIF89a', { headers: { 'content-type': 'image/gif' } }),
      )
      .provides('image/gif');
    const pdf = await app.request('/report.pdf', { headers: { Accept: 'application/pdf' } });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(await text(pdf)).toBe('%PDF-1.4');
    // JSON was possible too: caches keep the answers apart (RFC 9110 §12.5.5).
    expect(pdf.headers.get('vary')).toBe('Accept');
    const png = await app.request('/img', { headers: { Accept: 'image/*' } });
    expect(png.statusCode).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('vary')).toBe('Accept');
    const gif = await app.request('/relay', { headers: { Accept: 'image/gif' } });
    expect(gif.statusCode).toBe(200);
    expect(gif.headers.get('content-type')).toBe('image/gif');
    expect(await text(gif)).toBe('GIF89a');
    // Anything else is refused before the handler runs.
    ran = 0;
    const refused = await app.request('/report.pdf', { headers: { Accept: 'image/png' } });
    expect(refused.statusCode).toBe(406);
    expect(ran).toBe(0);
  });

  it('sends a string as that type when it is the one negotiated', async () => {
    const app = new RestApplication();
    app.get('/rows', () => 'a,b\n1,2\n').provides('text/csv');
    const csv = await app.request('/rows', { headers: { Accept: 'text/csv' } });
    expect(csv.headers.get('content-type')).toBe('text/csv');
    expect(csv.contentType).toBe('text/csv');
    expect(await text(csv)).toBe('a,b\n1,2\n');
    expect(csv.headers.get('vary')).toBe('Accept');
  });

  it('lets the handler choose by the negotiated mediaType', async () => {
    const app = new RestApplication();
    const rows = [{ a: 1 }];
    app
      .get('/rows', ({ mediaType }) => (mediaType === 'text/csv' ? 'a\n1\n' : rows))
      .provides('text/csv');
    expect(await text(await app.request('/rows', { headers: { Accept: 'text/csv' } }))).toBe(
      'a\n1\n',
    );
    expect(await text(await app.request('/rows'))).toBe('[{"a":1}]');
  });

  it('sends data as JSON when the type is JSON', async () => {
    const app = new RestApplication();
    app.get('/api', () => ({ a: 1 })).provides('application/vnd.api+json');
    const response = await app.request('/api', {
      headers: { Accept: 'application/vnd.api+json' },
    });
    expect(response.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(JSON.parse(await text(response))).toEqual({ a: 1 });
  });

  it('answers data under a type that is not JSON with a logged 500 saying what to do', async () => {
    const { logger, logged } = recordingLogger();
    const app = new RestApplication({ logger });
    app.get('/rows', () => ({ rows: [1] })).provides('text/csv');
    const response = await app.request('/rows', { headers: { Accept: 'text/csv' } });
    expect(response.statusCode).toBe(500);
    expect(String(response.body)).not.toContain('[object');
    expect(logged()).toMatch(
      /GET \/rows provides text\/csv without a renderer.*returned an object.*provides\('text\/csv', renderer\)/,
    );
  });
});
