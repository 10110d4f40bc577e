/**
 * The servers the instruction count compares, as `http.Server`s that never listen: Fastify and
 * raw node:http sending Fastify's two headers (`raw`), restmachine from `dist/` (run
 * `node scripts/build.mjs` first) and raw node:http sending exactly the headers it sends
 * (`raw-restmachine`), and the same pair for `renderers: 'json'`. Each answers GET / (JSON),
 * the parameterised GET behind 100 decoys (the raw ones answer any GET path alike) and POST /echo.
 */
import { createServer } from 'node:http';
import ECHO_DOCUMENT from '../lib/echo-document.json' with { type: 'json' };

const DOCUMENT = { hello: 'world' };

/** The 1 KB JSON document of the POST scenarios, the one bench/lib/payload.ts uses. */
export const ECHO_BODY = JSON.stringify(ECHO_DOCUMENT);

// POST /echo for the raw servers: the body read with stream events, parsed and sent back.
function echo(req, res, send) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () =>
    send(res, JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')))),
  );
}

function decoys() {
  return Array.from({ length: 100 }, (_, i) =>
    i % 2 === 0 ? `/users/{id}/decoy${i}/{postId}` : `/decoy${i}/{id}/posts/{postId}`,
  );
}

// Fastify's two headers, names and values as Fastify sends them.
function sendTwoHeaders(res, body) {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

async function raw() {
  return createServer((req, res) => {
    if (req.method === 'POST') echo(req, res, sendTwoHeaders);
    else sendTwoHeaders(res, JSON.stringify(DOCUMENT));
  });
}

const ID_PREFIX = '57594b5f-6502-4221-92f6-';
let counter = 0;

/**
 * The headers restmachine sends, names (lower-case) and order as it sends them: `vary: Accept`
 * only when more than one renderer could answer (the default application, not
 * `renderers: 'json'`), `accept-ranges: bytes` only on a GET (not on the POST's answer).
 * test/bench/baselines.test.ts checks that each list is the one restmachine sends.
 */
function sendRestmachineHeaders(res, body, vary, get) {
  // A fresh id per request, as restmachine makes one: an X-Request-ID is there to tell requests
  // apart, so a constant one is not the same header. This is the least a server must do for it
  // (a fixed prefix and a counter, the shape of restmachine's ids).
  const id = ID_PREFIX + (counter++).toString(16).padStart(12, '0');
  const length = String(Buffer.byteLength(body));
  // Each list written out in full, as restmachine hands Node one flat list: building the
  // shorter from the longer (a spread or a slice) added about 1,000 instructions per request to
  // the baseline, which would credit restmachine with a cost it does not have.
  let headers;
  if (vary && get) {
    headers = [
      'vary',
      'Accept',
      'content-type',
      'application/json',
      'x-request-id',
      id,
      'accept-ranges',
      'bytes',
      'content-length',
      length,
    ];
  } else if (vary) {
    headers = [
      'vary',
      'Accept',
      'content-type',
      'application/json',
      'x-request-id',
      id,
      'content-length',
      length,
    ];
  } else if (get) {
    headers = [
      'content-type',
      'application/json',
      'x-request-id',
      id,
      'accept-ranges',
      'bytes',
      'content-length',
      length,
    ];
  } else {
    headers = ['content-type', 'application/json', 'x-request-id', id, 'content-length', length];
  }
  res.writeHead(200, headers);
  res.end(body);
}

function rawRestmachineHeaders(vary) {
  const sendGet = (res, body) => sendRestmachineHeaders(res, body, vary, true);
  const sendPost = (res, body) => sendRestmachineHeaders(res, body, vary, false);
  return async () =>
    createServer((req, res) => {
      if (req.method === 'POST') echo(req, res, sendPost);
      else sendGet(res, JSON.stringify(DOCUMENT));
    });
}

async function fastify() {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  for (const template of decoys())
    app.get(template.replace(/\{(\w+)\}/g, ':$1'), async (r) => r.params);
  app.get('/', async () => DOCUMENT);
  app.get('/users/:id/posts/:postId', async (r) => ({ id: r.params.id, postId: r.params.postId }));
  app.post('/echo', async (r) => r.body);
  await app.ready();
  return app.server;
}

async function restmachine(options = {}) {
  const { RestApplication } = await import('../../dist/index.js');
  const { NodeAdapter } = await import('../../dist/adapters/node/index.js');
  const app = new RestApplication(options);
  for (const template of decoys()) app.get(template, ({ pathParams }) => pathParams);
  app.get('/', () => DOCUMENT);
  app.get('/users/{id}/posts/{postId}', ({ id, postId }) => ({ id, postId }));
  app.post('/echo', ({ jsonBody }) => jsonBody);
  await app.startup();
  const adapter = new NodeAdapter(app);
  const server = createServer(adapter.listener);
  server.on('checkContinue', adapter.checkContinueListener);
  return server;
}

export const SERVERS = {
  // Each baseline sends what its framework sends, no more: `raw` Fastify's two headers,
  // `raw-restmachine` the default application's, `raw-restmachine-json` those of
  // `renderers: 'json'`.
  raw,
  'raw-restmachine': rawRestmachineHeaders(true),
  'raw-restmachine-json': rawRestmachineHeaders(false),
  fastify,
  restmachine: () => restmachine(),
  // Only JSON is rendered: no negotiation between renderers, no `Vary: Accept`.
  'restmachine-json': () => restmachine({ renderers: 'json' }),
};
