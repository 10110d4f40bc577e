/**
 * The servers the instruction count compares, as `http.Server`s that never listen: raw
 * node:http with two headers, the same with the five headers restmachine sends, Fastify, and
 * restmachine from `dist/` (run `npm run build` first).
 */
import { createServer } from 'node:http';

const DOCUMENT = { hello: 'world' };

function decoys() {
  return Array.from({ length: 100 }, (_, i) =>
    i % 2 === 0 ? `/users/{id}/decoy${i}/{postId}` : `/decoy${i}/{id}/posts/{postId}`,
  );
}

async function raw() {
  return createServer((_req, res) => {
    const body = JSON.stringify(DOCUMENT);
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
}

let counter = 0;
async function rawFiveHeaders() {
  return createServer((_req, res) => {
    const body = JSON.stringify(DOCUMENT);
    const id = `57594b5f-6502-4221-92f6-${(counter++).toString(16).padStart(12, '0')}`;
    res.writeHead(200, [
      'Vary',
      'Accept',
      'Content-Type',
      'application/json',
      'X-Request-ID',
      id,
      'Accept-Ranges',
      'bytes',
      'Content-Length',
      String(Buffer.byteLength(body)),
    ]);
    res.end(body);
  });
}

async function fastify() {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  for (const template of decoys())
    app.get(template.replace(/\{(\w+)\}/g, ':$1'), async (r) => r.params);
  app.get('/', async () => DOCUMENT);
  app.get('/users/:id/posts/:postId', async (r) => ({ id: r.params.id, postId: r.params.postId }));
  await app.ready();
  return app.server;
}

async function restmachine() {
  const { RestApplication } = await import('../../dist/index.js');
  const { NodeAdapter } = await import('../../dist/adapters/node/index.js');
  const app = new RestApplication();
  for (const template of decoys()) app.get(template, ({ pathParams }) => pathParams);
  app.get('/', () => DOCUMENT);
  app.get('/users/{id}/posts/{postId}', ({ id, postId }) => ({ id, postId }));
  await app.startup();
  const adapter = new NodeAdapter(app);
  const server = createServer(adapter.listener);
  server.on('checkContinue', adapter.checkContinueListener);
  return server;
}

export const SERVERS = { raw, 'raw-five-headers': rawFiveHeaders, fastify, restmachine };
