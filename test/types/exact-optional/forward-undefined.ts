/**
 * Options built from what may be missing, as configuration code forwards them: each optional
 * property of the public options and inits is given `undefined`, which the run time takes as
 * absent. exact-optional.test.ts compiles this module with `exactOptionalPropertyTypes`, which
 * refuses an explicit `undefined` where a type does not say `| undefined`, and runs it.
 */
import { serve } from '../../../src/adapters/node/index.js';
import { createClient } from '../../../src/client/index.js';
import { Config, Schema } from '../../../src/config/index.js';
import { type Logger, Response, RestApplication } from '../../../src/index.js';

/** What each piece gives with every optional property `undefined`. */
export async function forwardUndefined(missing: undefined) {
  const logger: Logger | undefined = missing;
  const app = new RestApplication({
    logger,
    bodyLimit: missing,
    debug: missing,
    renderers: missing,
    etag: missing,
    wwwAuthenticate: missing,
    authorization: missing,
    accessLog: missing,
    requestTimeout: missing,
    validateResponses: missing,
    multipart: { fileSize: missing, files: missing, tmpDir: missing },
  }).withRoutes((r) => [
    r.get('/', () => new Response(200, 'hi', { headers: missing, contentType: missing })),
    r.get('/query', ({ queryParams }) => queryParams),
  ]);
  const request = await app.request('/', {
    method: missing,
    headers: missing,
    body: missing,
    json: missing,
  });
  const client = createClient({ app, headers: missing });
  const called = await client.get('/query', { signal: missing, query: missing, headers: missing });
  const config = Config.fromYaml('port: 1', {
    filename: missing,
    baseDir: missing,
    env: missing,
    maxValueBytes: missing,
    maxTotalBytes: missing,
  });
  const served = await serve(app, {
    port: 0,
    host: missing,
    tls: missing,
    handleSignals: false,
    shutdownTimeout: missing,
    headersTimeout: missing,
    requestTimeout: missing,
    keepAliveTimeout: missing,
    trustProxy: missing,
  });
  const overHttp = await fetch(served.url);
  await served.close();
  return {
    multipart: app.multipart,
    request: [request.statusCode, request.body],
    client: [called.status, called.data],
    config: config.validate(Schema.fromObject({ type: 'object' }), { applyDefaults: missing }),
    served: [overHttp.status, await overHttp.text()],
  };
}
