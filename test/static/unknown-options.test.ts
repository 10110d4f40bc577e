/**
 * `new StaticRouter(location, options)` refuses an option name it does not know (its own and
 * the `cache` object's) with its StaticRouterError `INVALID_OPTION`, naming the options there
 * are (docs/application.md, "Errors"); the options it knows still work.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/index.js';
import { StaticRouter, StaticRouterError } from '../../src/static/index.js';
import { quietApp, send } from './helpers.js';

// Built from a variable, as options loaded from configuration are.
const options = (value: object): never => value as never;

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'restmachine-static-options-'));
  writeFileSync(join(root, 'index.html'), '<h1>home</h1>');
  writeFileSync(join(root, '.env'), 'SECRET=1');
  writeFileSync(join(root, 'app.3f9a2c1e.js'), 'console.log(1);');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('new StaticRouter() options', () => {
  it('refuses a misspelt option, naming the options there are', () => {
    const make = () => new StaticRouter(root, options({ dotFiles: 'deny' }));
    expect(make).toThrow(StaticRouterError);
    expect(make).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message:
          'StaticRouter: unknown option "dotFiles"; the options are indexFile, retryWithIndex, s3, s3Sdk, cacheControl, immutable, fallback, dotfiles, precompressed, cache, logger',
      }),
    );
    expect(() => new StaticRouter(root, options({ cachecontrol: 'no-store' }))).toThrow(
      /^StaticRouter: unknown option "cachecontrol"/,
    );
  });

  it('refuses a misspelt cache limit', () => {
    const make = () => new StaticRouter(root, { cache: options({ maxFilesize: 1024 }) });
    expect(make).toThrow(StaticRouterError);
    expect(make).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        message:
          'StaticRouter cache: unknown option "maxFilesize"; the options are maxFileSize, maxBytes',
      }),
    );
  });

  it('still serves with the options it knows', async () => {
    const app = quietApp();
    app.mount(
      '/',
      new StaticRouter(root, {
        indexFile: 'index.html',
        retryWithIndex: false,
        cacheControl: 'public, max-age=60',
        immutable: /\.[0-9a-f]{8}\./,
        fallback: 'index.html',
        dotfiles: 'deny',
        precompressed: false,
        cache: { maxFileSize: 1024, maxBytes: 4096 },
        logger: silentLogger,
      }),
    );
    const home = await send(app, '/');
    expect(home.status).toBe(200);
    expect(home.text).toBe('<h1>home</h1>');
    expect(home.headers.get('cache-control')).toBe('public, max-age=60');
    expect((await send(app, '/app.3f9a2c1e.js')).headers.get('cache-control')).toBe(
      'public, max-age=31536000, immutable',
    );
    expect((await send(app, '/.env')).status).toBe(403);
    const page = await send(app, '/some/page');
    expect(page.status).toBe(200);
    expect(page.text).toBe('<h1>home</h1>');
  });
});
