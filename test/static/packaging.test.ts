/**
 * `@aws-sdk/client-s3` is an optional peer dependency: a clear error without it, loaded only for
 * S3 locations (docs/static-files.md). That the core bundle holds no static code is
 * test/budget.test.ts.
 */
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { StaticRouter, StaticRouterError } from '../../src/static/index.js';
import { S3_PACKAGE, setS3SdkLoader } from '../../src/static/s3-sdk.js';
import { createFixture, quietApp, send } from './helpers.js';

afterEach(() => setS3SdkLoader(undefined));

function moduleNotFound(): Error {
  return Object.assign(new Error(`Cannot find module '${S3_PACKAGE}'`), {
    code: 'MODULE_NOT_FOUND',
  });
}

describe('without @aws-sdk/client-s3', () => {
  it('an S3 location throws at construction, naming the package to install', () => {
    setS3SdkLoader({
      resolve: () => {
        throw moduleNotFound();
      },
      load: () => Promise.reject(moduleNotFound()),
    });
    for (const serve of ['s3://site/www/', 'objstore://site/']) {
      let thrown: unknown;
      try {
        new StaticRouter(serve);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(StaticRouterError);
      expect((thrown as StaticRouterError).code).toBe('S3_CLIENT_MISSING');
      expect((thrown as StaticRouterError).message).toContain('@aws-sdk/client-s3');
      expect((thrown as StaticRouterError).message).toContain('npm install @aws-sdk/client-s3');
    }
  });

  it('a local directory never looks for the package', async () => {
    let looked = 0;
    setS3SdkLoader({
      resolve: () => {
        looked++;
        throw moduleNotFound();
      },
      load: () => {
        looked++;
        return Promise.reject(moduleNotFound());
      },
    });
    const fixture = createFixture();
    try {
      const app = quietApp();
      app.mount('/', new StaticRouter(fixture.root));
      expect((await send(app, '/hello.txt')).status).toBe(200);
      expect(looked).toBe(0);
    } finally {
      fixture.remove();
    }
  });

  it('a module that resolves but fails to load answers 500 and is retried later', async () => {
    let loads = 0;
    setS3SdkLoader({
      resolve: () => undefined,
      load: () => {
        loads++;
        return Promise.reject(new Error('broken install'));
      },
    });
    const errors: string[] = [];
    const app = quietApp();
    app.mount(
      '/',
      new StaticRouter('s3://site/', {
        logger: {
          debug: () => undefined,
          info: () => undefined,
          warn: () => undefined,
          error: (message) => errors.push(message),
        },
      }),
    );
    expect((await send(app, '/a.txt')).status).toBe(500);
    expect((await send(app, '/a.txt')).status).toBe(500);
    expect(loads).toBe(2);
    expect(errors.join('\n')).toContain('@aws-sdk/client-s3');
  });
});

describe('bundles', () => {
  it('restmachine/static imports the S3 SDK only dynamically', async () => {
    const result = await build({
      entryPoints: ['src/static/index.ts'],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      metafile: true,
      external: ['@aws-sdk/client-s3'],
      logLevel: 'silent',
    });
    const output = Object.values(result.metafile.outputs)[0];
    const sdk = output?.imports.filter((entry) => entry.path === '@aws-sdk/client-s3') ?? [];
    expect(sdk.length).toBeGreaterThan(0);
    for (const entry of sdk) expect(entry.kind).toBe('dynamic-import');
  });
});
