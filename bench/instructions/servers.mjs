/**
 * The servers the instruction count compares, as `http.Server`s that never listen: raw
 * node:http with two headers, the same with the five headers restmachine sends (and the four
 * it sends with `renderers: 'json'`), Fastify, and
 * restmachine from `dist/` (run `npm run build` first), also with `renderers: 'json'`. Each answers GET / (JSON), the
 * parameterised GET behind 100 decoys (the raw ones answer any GET path alike) and POST /echo.
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

function sendTwoHeaders(res, body) {
  res.writeHead(200, {
    'content-type': 'application/json',
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

let counter = 0;
// What restmachine sends: `Vary: Accept` only when more than one renderer could answer (the
// default application); `renderers: 'json'` sends the other four.
function sendRestmachineHeaders(res, body, vary) {
  const id = `57594b5f-6502-4221-92f6-${(counter++).toString(16).padStart(12, '0')}`;
  const length = String(Buffer.byteLength(body));
  // Each list written out in full, as restmachine hands Node one flat list: building the
  // shorter from the longer (a spread or a slice) added about 1,000 instructions per request to
  // the baseline, which would credit restmachine with a cost it does not have.
  res.writeHead(
    200,
    vary
      ? [
          'Vary',
          'Accept',
          'Content-Type',
          'application/json',
          'X-Request-ID',
          id,
          'Accept-Ranges',
          'bytes',
          'Content-Length',
          length,
        ]
      : [
          'Content-Type',
          'application/json',
          'X-Request-ID',
          id,
          'Accept-Ranges',
          'bytes',
          'Content-Length',
          length,
        ],
  );
  res.end(body);
}

function rawRestmachineHeaders(vary) {
  const send = (res, body) => sendRestmachineHeaders(res, body, vary);
  return async () =>
    createServer((req, res) => {
      if (req.method === 'POST') echo(req, res, send);
      else send(res, JSON.stringify(DOCUMENT));
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
  raw,
  'raw-five-headers': rawRestmachineHeaders(true),
  'raw-four-headers': rawRestmachineHeaders(false),
  fastify,
  restmachine: () => restmachine(),
  // Only JSON is rendered: no negotiation between renderers, no `Vary: Accept`.
  'restmachine-json': () => restmachine({ renderers: 'json' }),
};
