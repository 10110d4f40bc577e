/**
 * `@aws-sdk/client-s3` is an optional peer dependency: a clear error without it, on the request
 * that needed it, and loaded only for S3 locations (docs/static-files.md). That a bundle with the
 * SDK inside serves from S3 is test/package/bundle.test.ts. That the core bundle holds no static code is
 * test/budget.test.ts.
 */
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import {
  StaticRouter,
  StaticRouterError,
  type StaticRouterOptions,
} from '../../src/static/index.js';
import { S3_PACKAGE, setS3SdkLoader } from '../../src/static/s3-sdk.js';
import { createFixture, quietApp, send } from './helpers.js';

afterEach(() => setS3SdkLoader(undefined));

function moduleNotFound(): Error {
  return Object.assign(new Error(`Cannot find module '${S3_PACKAGE}'`), {
    code: 'MODULE_NOT_FOUND',
  });
}

/** A logger that keeps what the router logs as errors. */
function errorLog(): { logger: StaticRouterOptions['logger']; errors: unknown[][] } {
  const errors: unknown[][] = [];
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (...args: unknown[]) => errors.push(args),
  };
  return { logger, errors };
}

describe('without @aws-sdk/client-s3', () => {
  it('an S3 location constructs, and a request answers 500 and logs S3_CLIENT_MISSING naming the package to install', async () => {
    setS3SdkLoader({ load: () => Promise.reject(moduleNotFound()) });
    for (const serve of ['s3://site/www/', 'objstore://site/']) {
      const { logger, errors } = errorLog();
      const app = quietApp();
      app.mount('/', new StaticRouter(serve, { logger }));
      expect((await send(app, '/a.txt')).status).toBe(500);
      const [message, fields] = errors[0] as [string, { error: unknown }];
      expect(message).toContain('npm install @aws-sdk/client-s3');
      expect(fields.error).toBeInstanceOf(StaticRouterError);
      expect((fields.error as StaticRouterError).code).toBe('S3_CLIENT_MISSING');
    }
  });

  it('a local directory never looks for the package', async () => {
    let looked = 0;
    setS3SdkLoader({
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

  it('a module that fails to load answers 500 and is retried later', async () => {
    let loads = 0;
    setS3SdkLoader({
      load: () => {
        loads++;
        return Promise.reject(new Error('broken install'));
      },
    });
    const { logger, errors } = errorLog();
    const app = quietApp();
    app.mount('/', new StaticRouter('s3://site/', { logger }));
    expect((await send(app, '/a.txt')).status).toBe(500);
    expect((await send(app, '/a.txt')).status).toBe(500);
    expect(loads).toBe(2);
    expect(errors.map(([message]) => message).join('\n')).toContain(
      'StaticRouter: the package @aws-sdk/client-s3 could not be loaded: broken install',
    );
  });
});

describe('bundles', () => {
  it('restmachine/static bundles without the S3 SDK: its import of it is one esbuild does not follow', async () => {
    const result = await build({
      entryPoints: ['src/static/index.ts'],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      metafile: true,
      logLevel: 'silent',
    });
    const output = Object.values(result.metafile.outputs)[0];
    expect(output?.imports.filter((entry) => entry.path.includes('@aws-sdk'))).toEqual([]);
    expect(
      Object.keys(result.metafile.inputs).filter((input) => input.includes('@aws-sdk')),
    ).toEqual([]);
  });
});
