/**
 * `openapi(app, options)` and `openapiRouter(app, options)` refuse an option name they do not
 * know with `INVALID_OPTION`, naming the options there are (docs/application.md, "Errors");
 * the options they know still shape the document and the router.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { RestApplication, silentLogger } from '../../src/index.js';
import { openapi, openapiRouter } from '../../src/openapi/index.js';

// Built from a variable, as options loaded from configuration are.
const options = (value: object): never => value as never;
const info = { title: 'Notes', version: '1.0.0' };

function invalidOption(message: string) {
  return expect.objectContaining({ name: 'SetupError', code: 'INVALID_OPTION', message });
}

function notesApp() {
  const app = new RestApplication({ logger: silentLogger });
  app.get('/notes', () => []).describe({ tags: ['notes'] });
  return app;
}

describe('openapi()', () => {
  it('refuses a misspelt option', () => {
    expect(() => openapi(notesApp(), options({ info, server: [{ url: '/' }] }))).toThrow(
      invalidOption('openapi(): unknown option "server"; the options are info, servers, tags'),
    );
  });

  it('still takes info, servers and tags', () => {
    const document = openapi(notesApp(), {
      info,
      servers: [{ url: 'https://api.example.com' }],
      tags: [{ name: 'notes', description: 'Notes' }],
    });
    expect(document.info).toEqual(info);
    expect(document.servers).toEqual([{ url: 'https://api.example.com' }]);
    expect(document.tags).toEqual([{ name: 'notes', description: 'Notes' }]);
  });
});

describe('openapiRouter()', () => {
  it('refuses a misspelt option where it is given, with its own options listed', () => {
    const app = notesApp();
    expect(() => openapiRouter(app, options({ info, doc: false }))).toThrow(
      invalidOption(
        'openapiRouter(): unknown option "doc"; the options are path, docs, resolver, public, info, servers, tags',
      ),
    );
    expect(() => openapiRouter(app, options({ info, tag: [] }))).toThrow(
      'openapiRouter(): unknown option "tag"',
    );
  });

  it('still takes every option it knows', async () => {
    const app = notesApp();
    app.mount(
      '/',
      openapiRouter(app, {
        info,
        servers: [{ url: '/' }],
        tags: [{ name: 'notes' }],
        path: '/spec.json',
        docs: '/reference',
        resolver: createRequire(import.meta.url),
      }),
    );
    await app.startup();
    const document = await app.request('/spec.json');
    expect(document.statusCode).toBe(200);
    expect(JSON.parse(document.body as string)).toMatchObject({ info, servers: [{ url: '/' }] });
    expect((await app.request('/reference')).statusCode).toBe(200);
    expect((await app.request('/openapi.json')).statusCode).toBe(404);
  });
});
