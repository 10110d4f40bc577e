/**
 * openapiRouter(): the document and the API reference page, served by the application itself
 * (Swagger UI from the installed swagger-ui-dist), public, and absent from the document.
 */
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serve } from '../../src/adapters/node/index.js';
import { RestApplication, Router, SetupError, silentLogger } from '../../src/index.js';
import { openapiRouter } from '../../src/openapi/index.js';
import { referencePage, relativeUrl } from '../../src/openapi/reference-page.js';

const info = { title: 'Notes <API>', version: '2.0.0' };

function notesApp() {
  const app = new RestApplication({ logger: silentLogger, authorization: 'required' }).authorized(
    'user',
    ({ headers }) => headers.get('authorization'),
    { global: true },
  );
  app.get('/notes', () => []).describe({ tags: ['notes'] });
  return app;
}

function text(body: unknown): string {
  return typeof body === 'string' ? body : new TextDecoder().decode(body as Uint8Array);
}

/** The page's links, resolved as a browser would against the page's URL. */
function links(html: string, pageUrl: string): string[] {
  return [...html.matchAll(/(?:href|src|data-url)="([^"]+)"/g)].map(
    (match) => new URL(match[1] as string, pageUrl).pathname,
  );
}

describe('openapiRouter', () => {
  it('serves the document without its own routes, and the page with its assets, unguarded', async () => {
    const app = notesApp();
    app.mount('/', openapiRouter(app, { info }));
    await app.startup();
    const document = await app.request('/openapi.json');
    expect(document.statusCode).toBe(200);
    expect(document.headers.get('content-type')).toBe('application/json');
    const parsed = JSON.parse(text(document.body));
    expect(Object.keys(parsed.paths)).toEqual(['/notes']);
    expect(parsed.tags).toEqual([{ name: 'notes' }]);
    // A browser's Accept does not turn the document into HTML, nor into a 406.
    const asked = await app.request('/openapi.json', { headers: { accept: 'text/html' } });
    expect(asked.headers.get('content-type')).toBe('application/json');

    const page = await app.request('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = text(page.body);
    expect(html).toContain('<title>Notes &#60;API&#62; 2.0.0</title>');
    expect(html).not.toMatch(/https?:\/\//);
    const urls = links(html, 'http://host/docs');
    expect(urls).toEqual([
      '/docs/assets/favicon-32x32.png',
      '/docs/assets/swagger-ui.css',
      '/openapi.json',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/init.js',
    ]);
    for (const url of urls) expect((await app.request(url)).statusCode, url).toBe(200);
    const script = await app.request('/docs/assets/swagger-ui-bundle.js');
    expect(script.headers.get('content-type')).toMatch(/^(?:text|application)\/javascript/);
    expect(text((await app.request('/docs/init.js')).body)).toContain('SwaggerUIBundle(');
    // Only what the page loads: not the package's demo page, version or source maps.
    for (const other of ['index.html', 'package.json', 'swagger-ui-bundle.js.map', '']) {
      expect((await app.request(`/docs/assets/${other}`)).statusCode, other).toBe(404);
    }
    // The API itself is still guarded.
    expect((await app.request('/notes')).statusCode).toBe(401);
  });

  it('checks the document at startup: a document that cannot be built fails it', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/a', () => 1).describe({ operationId: 'same' });
    app.get('/b', () => 2).describe({ operationId: 'same' });
    app.mount('/', openapiRouter(app, { info, docs: false }));
    await expect(app.startup()).rejects.toThrow(
      expect.objectContaining({
        name: 'SetupError',
        message: 'describe() of GET /b: operationId "same" is used twice',
      }),
    );
    // serve() runs startup before it listens: it rejects, and nothing is deployed.
    const served = new RestApplication({ logger: silentLogger });
    served.get('/a', () => 1).describe({ operationId: 'same' });
    served.get('/b', () => 2).describe({ operationId: 'same' });
    served.mount('/', openapiRouter(served, { info, docs: false }));
    await expect(
      serve(served, { port: 0, host: '127.0.0.1', handleSignals: false }),
    ).rejects.toThrow(/used twice/);
    expect(() => {
      const sync = new RestApplication({ logger: silentLogger });
      sync.get('/c', () => 1).describe({ operationId: 'same' });
      sync.get('/d', () => 1).describe({ operationId: 'same' });
      sync.mount('/', openapiRouter(sync, { info, docs: false }));
      sync.startupSync();
    }).toThrow(/used twice/);
  });

  it('builds the document once at startup and serves it until a registration', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/a', () => 1);
    app.mount('/', openapiRouter(app, { info, docs: false }));
    await app.startup();
    const paths = async () =>
      Object.keys(JSON.parse(text((await app.request('/openapi.json')).body)).paths);
    expect(await paths()).toEqual(['/a']);
    app.get('/b', () => 2);
    expect(await paths()).toEqual(['/a', '/b']);
  });

  it('checks the document at once when the application has started already', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/a', () => 1).describe({ operationId: 'same' });
    await app.startup();
    app.get('/b', () => 2).describe({ operationId: 'same' });
    expect(() => openapiRouter(app, { info, docs: false })).toThrow(/used twice/);
  });

  it('keeps its links right under a mount prefix, with or without a trailing slash', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/ping', () => 'pong');
    app.mount('/api', openapiRouter(app, { info, path: '/spec/openapi.json', docs: '/reference' }));
    for (const pageUrl of ['http://host/api/reference', 'http://host/api/reference/']) {
      const page = await app.request(new URL(pageUrl).pathname);
      const urls = links(text(page.body), pageUrl);
      expect(urls).toContain('/api/spec/openapi.json');
      for (const url of urls) expect((await app.request(url)).statusCode, url).toBe(200);
    }
    // Repeated slashes route to the same page, which a browser resolves its links against.
    for (const pageUrl of ['http://host//api//reference//', 'http://host/api//reference']) {
      const page = await app.request(new URL(pageUrl).pathname);
      const urls = links(text(page.body), pageUrl);
      expect(urls.map((url) => url.replace(/\/+/g, '/'))).toContain('/api/spec/openapi.json');
      for (const url of urls) expect((await app.request(url)).statusCode, url).toBe(200);
    }
    const document = JSON.parse(text((await app.request('/api/spec/openapi.json')).body));
    expect(Object.keys(document.paths)).toEqual(['/ping']);
  });

  it('builds the document again after a registration', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.mount('/', openapiRouter(app, { info }));
    app.get('/a', () => 1);
    const first = JSON.parse(text((await app.request('/openapi.json')).body));
    app.get('/b', () => 1);
    const second = JSON.parse(text((await app.request('/openapi.json')).body));
    expect(Object.keys(first.paths)).toEqual(['/a']);
    expect(Object.keys(second.paths)).toEqual(['/a', '/b']);
  });

  it('serves the document only with docs: false', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.mount('/', openapiRouter(app, { info, docs: false }));
    expect((await app.request('/openapi.json')).statusCode).toBe(200);
    expect((await app.request('/docs')).statusCode).toBe(404);
  });

  it('is a SetupError naming the package and its install command when swagger-ui-dist is missing', () => {
    const app = new RestApplication({ logger: silentLogger });
    const nowhere = createRequire(join(tmpdir(), 'no-such-project', 'index.js'));
    const attempt = () => openapiRouter(app, { info, resolver: nowhere });
    expect(attempt).toThrow(SetupError);
    expect(attempt).toThrow(/"swagger-ui-dist".*npm install swagger-ui-dist/);
    // The document alone needs no peer.
    expect(() => openapiRouter(app, { info, docs: false, resolver: nowhere })).not.toThrow();
  });

  it('is left to the guards of the router it is mounted in with public: false', async () => {
    const app = new RestApplication({ logger: silentLogger });
    const admin = new Router().authorized('user', ({ headers }) => headers.get('authorization'));
    admin.get('/rotate-keys', () => 'rotated');
    admin.mount('/open', openapiRouter(app, { info, docs: false, path: '/openapi.json' }));
    admin.mount('/guarded', openapiRouter(app, { info, docs: false, public: false }));
    app.mount('/admin', admin);
    // The default stays public, mounted in a guarded router too.
    expect((await app.request('/admin/open/openapi.json')).statusCode).toBe(200);
    expect((await app.request('/admin/guarded/openapi.json')).statusCode).toBe(401);
    const asAdmin = { headers: { authorization: 'Bearer k' } };
    expect((await app.request('/admin/guarded/openapi.json', asAdmin)).statusCode).toBe(200);
    // A value that is no boolean (text from the environment) is refused, not taken as public.
    expect(() =>
      openapiRouter(app, { info, docs: false, public: 'false' as unknown as boolean }),
    ).toThrow('openapiRouter(): public must be true or false, got "false"');
  });

  it('refuses the root and a page at the document path', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => openapiRouter(app, { info, path: '/' })).toThrow(SetupError);
    expect(() => openapiRouter(app, { info, docs: '/openapi.json' })).toThrow(/must differ/);
  });
});

describe('relativeUrl', () => {
  it('resolves from the page to the target as a browser would', () => {
    const cases: Array<[string, string, boolean]> = [
      ['/docs', '/openapi.json', false],
      ['/docs', '/openapi.json', true],
      ['/a/b/docs', '/a/openapi.json', false],
      ['/a/b/docs', '/a/openapi.json', true],
      ['/docs', '/docs/assets/x.css', false],
      ['/docs', '/docs/assets/x.css', true],
      ['/x/docs', '/y/z/openapi.json', false],
    ];
    for (const [page, target, slash] of cases) {
      const requested = `/mount${page}${slash ? '/' : ''}`;
      const resolved = new URL(relativeUrl(requested, page, target), `http://host${requested}`)
        .pathname;
      expect(resolved, `${page} -> ${target}`).toBe(`/mount${target}`);
    }
  });
});

describe('the reference page', () => {
  const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/).filter((text) => !/^\.+$/.test(text));
  const template = fc
    .array(segment, { minLength: 1, maxLength: 4 })
    .map((parts) => `/${parts.join('/')}`);

  it('links resolve to their targets from any page, mount prefix and trailing slash (property)', () => {
    fc.assert(
      fc.property(template, template, template, fc.boolean(), (mount, page, target, slash) => {
        const requested = `${mount}${page}${slash ? '/' : ''}`;
        const resolved = new URL(relativeUrl(requested, page, target), `http://host${requested}`)
          .pathname;
        expect(resolved).toBe(`${mount}${target}`);
      }),
    );
  });

  it('links route to their targets from a page asked for with repeated slashes (property)', () => {
    // The page's path as a client may send it: each `/` of it one or more, and trailing ones.
    const sent = (path: string) =>
      fc
        .tuple(
          fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 8, maxLength: 8 }),
          fc.integer({ min: 0, max: 3 }),
        )
        .map(
          ([runs, trailing]) =>
            path
              .split('/')
              .slice(1)
              .map((segment, index) => `${'/'.repeat(runs[index] ?? 1)}${segment}`)
              .join('') + '/'.repeat(trailing),
        );
    const pageRequest = fc
      .tuple(template, template, template)
      .chain(([mount, page, target]) =>
        sent(`${mount}${page}`).map((requested) => ({ mount, page, target, requested })),
      );
    fc.assert(
      fc.property(pageRequest, ({ mount, page, target, requested }) => {
        const resolved = new URL(relativeUrl(requested, page, target), `http://host${requested}`)
          .pathname;
        // Repeated slashes do not change which route a path reaches (docs/application.md).
        expect(resolved.replace(/\/+/g, '/')).toBe(`${mount}${target}`);
      }),
    );
  });

  it('escapes whatever the title and links hold (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (title, link) => {
        const html = referencePage({
          title,
          document: link,
          style: link,
          script: link,
          init: link,
          icon: link,
        });
        const markup = html.replace(
          /<\/?(?:!doctype|html|head|meta|title|link|body|div|script)\b[^<>]*>/g,
          '',
        );
        expect(markup).not.toMatch(/[<>]/);
      }),
    );
  });
});
