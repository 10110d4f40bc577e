/**
 * The realistic application of the instruction count, written the way each framework's users
 * write it: `POST /notes` with a validated body (zod for restmachine and Hono, Fastify's JSON
 * schema), CORS for one origin, a bearer-token check, and `GET /notes/{id}` with an ETag from
 * the note's version. Every framework answers the same requests with the same bodies; `raw-*`
 * replays, on bare node:http, exactly the status, headers and body its framework sent (minus
 * what node:http adds itself), so "own overhead" subtracts the same header work.
 */
import { createServer } from 'node:http';

export const ORIGIN = 'https://app.example';
export const TOKEN = 'secret-token-0123456789';
export const NOTE_BODY = JSON.stringify({
  title: 'Groceries',
  body: 'Milk, eggs, flour, butter and a little time on Sunday to bake.',
  tags: ['home', 'weekend'],
});

/** The request heads of the two routes (the POST's body is NOTE_BODY). */
export const NOTES_REQUESTS = {
  'notes-post': `POST /notes HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: wrk\r\nAccept: */*\r\nOrigin: ${ORIGIN}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(NOTE_BODY)}\r\n\r\n${NOTE_BODY}`,
  'notes-get': `GET /notes/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: wrk\r\nAccept: */*\r\nOrigin: ${ORIGIN}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
};

/** The same store for everyone: ids count up, note 1 exists from the start. */
function noteStore() {
  const notes = new Map([['1', { id: '1', version: 1, title: 'First', body: 'Hello', tags: [] }]]);
  let created = 0;
  return {
    get: (id) => notes.get(id),
    create(input) {
      // A bounded store (ids 2 to 1001): the benchmark posts tens of thousands of notes.
      const id = String(2 + (created++ % 1000));
      const note = { id, version: 1, ...input };
      notes.set(id, note);
      return note;
    },
  };
}

function bearerToken(header) {
  return header?.startsWith('Bearer ') ? header.slice(7) : undefined;
}

async function restmachineNotes() {
  const { RestApplication } = await import('../../dist/index.js');
  const { NodeAdapter } = await import('../../dist/adapters/node/index.js');
  const { z } = await import('zod');
  const store = noteStore();
  const app = new RestApplication({ wwwAuthenticate: 'Bearer' })
    .cors({ origin: ORIGIN })
    .dependency('notes', () => store, { scope: 'session' })
    .authorized('user', ({ headers }) =>
      bearerToken(headers.get('authorization')) === TOKEN ? { name: 'ada' } : undefined,
    )
    // A missing note is a 404 before the handler runs (after the authorization hook).
    .resourceExists('note', ({ notes, id }) => notes.get(id))
    .validates(
      'newNote',
      z.object({
        title: z.string().min(1).max(200),
        body: z.string().max(10_000),
        tags: z.array(z.string()).max(10),
      }),
    );
  app.post('/notes', ({ notes, newNote, user }) => {
    const created = notes.create({ ...newNote, owner: user.name });
    return [created, 201, { Location: `/notes/${created.id}` }];
  });
  // Injecting `user` (unused) is what makes the route run the authorization hook.
  app
    .get('/notes/{id}', ({ note, user: _user }) => note)
    .etag(({ note }) => note.version.toString());
  await app.startup();
  const adapter = new NodeAdapter(app);
  return createServer(adapter.listener);
}

async function fastifyNotes() {
  const { default: Fastify } = await import('fastify');
  const { default: cors } = await import('@fastify/cors');
  const store = noteStore();
  // Validated as zod validates the others' bodies: no type coercion (Fastify's Ajv coerces by
  // default, `tags: [1]` became ["1"]; this application has no other schema, so the option is
  // the route's), and unknown properties stripped (additionalProperties: false with Fastify's
  // default removeAdditional, as z.object strips them).
  const app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false } } });
  await app.register(cors, { origin: ORIGIN });
  app.addHook('preHandler', async (request, reply) => {
    if (bearerToken(request.headers.authorization) !== TOKEN) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'Unauthorized' });
    }
    request.user = { name: 'ada' };
  });
  const noteSchema = {
    type: 'object',
    required: ['title', 'body', 'tags'],
    additionalProperties: false,
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 200 },
      body: { type: 'string', maxLength: 10_000 },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
    },
  };
  app.post('/notes', { schema: { body: noteSchema } }, async (request, reply) => {
    const created = store.create({ ...request.body, owner: request.user.name });
    reply.code(201).header('location', `/notes/${created.id}`);
    return created;
  });
  app.get('/notes/:id', async (request, reply) => {
    const note = store.get(request.params.id);
    if (note === undefined) return reply.code(404).send({ error: 'Not Found' });
    const etag = `"${note.version}"`;
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    reply.header('etag', etag);
    return note;
  });
  await app.ready();
  return app.server;
}

async function honoNotes() {
  const { Hono } = await import('hono');
  const { cors } = await import('hono/cors');
  const { bearerAuth } = await import('hono/bearer-auth');
  const { zValidator } = await import('@hono/zod-validator');
  const { getRequestListener } = await import('@hono/node-server');
  const { z } = await import('zod');
  const store = noteStore();
  const app = new Hono();
  app.use('*', cors({ origin: ORIGIN }));
  // One registration: Hono's '/notes/*' matches '/notes' too (a second one on '/notes' ran the
  // check twice on the POST). The token is compared with ===, as restmachine's and Fastify's
  // hooks do; `bearerAuth({ token })` would hash both strings with SHA-256 for a constant-time
  // comparison, work the other two applications do not do.
  app.use('/notes/*', bearerAuth({ verifyToken: (token) => token === TOKEN }));
  const noteSchema = z.object({
    title: z.string().min(1).max(200),
    body: z.string().max(10_000),
    tags: z.array(z.string()).max(10),
  });
  app.post('/notes', zValidator('json', noteSchema), (c) => {
    const created = store.create({ ...c.req.valid('json'), owner: 'ada' });
    c.header('Location', `/notes/${created.id}`);
    return c.json(created, 201);
  });
  app.get('/notes/:id', (c) => {
    const note = store.get(c.req.param('id'));
    if (note === undefined) return c.json({ error: 'Not Found' }, 404);
    const etag = `"${note.version}"`;
    if (c.req.header('if-none-match') === etag) return c.body(null, 304);
    c.header('ETag', etag);
    return c.json(note);
  });
  return createServer(getRequestListener(app.fetch));
}

const ID_PREFIX = '57594b5f-6502-4221-92f6-';

// What node:http adds by itself; the replaying server lets it add them again.
const ADDED_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * A bare node:http server answering like `framework` did: the request body (if any) is read and
 * parsed as JSON, then the recorded status, headers and body are written in one writeHead.
 */
function replaying(recorded) {
  // An X-Request-ID the framework sent is made afresh for each request, as the framework makes
  // it and as bench/instructions/servers.mjs's baselines do: the header is there to tell requests
  // apart, so a constant one would not be the same header. A fixed prefix and a counter, written
  // into the recorded list in place, is the least a server must do for it.
  const ids = {};
  for (const [name, answer] of Object.entries(recorded)) {
    const at = answer.headers.findIndex(
      (h, i) => i % 2 === 0 && h.toLowerCase() === 'x-request-id',
    );
    if (at !== -1) ids[name] = at + 1;
  }
  let counter = 0;
  return createServer((req, res) => {
    const which = req.method === 'POST' ? 'notes-post' : 'notes-get';
    const answer = recorded[which];
    const id = ids[which];
    const send = () => {
      if (id !== undefined)
        answer.headers[id] = ID_PREFIX + (counter++).toString(16).padStart(12, '0');
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    };
    if (req.method !== 'POST') return send();
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      send();
    });
  });
}

/** Parses one recorded HTTP/1.1 response (Content-Length or chunked framing). */
function parseResponse(text) {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = [];
  let chunked = false;
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'transfer-encoding') chunked = true;
    if (!ADDED_BY_NODE.has(name.toLowerCase())) headers.push(name, value);
  }
  let body = text.slice(end + 4);
  if (chunked) {
    let out = '';
    for (;;) {
      const lineEnd = body.indexOf('\r\n');
      const size = Number.parseInt(body.slice(0, lineEnd), 16);
      if (size === 0) break;
      out += body.slice(lineEnd + 2, lineEnd + 2 + size);
      body = body.slice(lineEnd + 4 + size);
    }
    body = out;
    headers.push('Content-Length', String(Buffer.byteLength(body)));
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** Sends one request to `server` over an in-memory connection and returns the raw response. */
export async function recordOne(server, request) {
  const { Duplex } = await import('node:stream');
  return new Promise((resolve) => {
    let text = '';
    let timer;
    const connection = new Duplex({
      read() {},
      write(chunk, _encoding, callback) {
        text += chunk.toString('latin1');
        clearTimeout(timer);
        timer = setTimeout(() => resolve(text), 50);
        callback();
      },
    });
    connection.remoteAddress = '127.0.0.1';
    connection.remotePort = 40000;
    connection.setTimeout = () => connection;
    connection.setNoDelay = () => connection;
    connection.setKeepAlive = () => connection;
    server.emit('connection', connection);
    connection.push(Buffer.from(request));
  });
}

/**
 * The replaying server for `framework`. What it replays is recorded in a child process (which
 * valgrind does not follow): a framework run in the counted process, even for two requests,
 * leaves its type feedback in node:http's shared code and moved the replay's own count by
 * thousands of instructions per request from one restmachine build to the next.
 */
function rawLike(framework) {
  return async () => {
    const { execFileSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const script = fileURLToPath(import.meta.url);
    const output = execFileSync(process.execPath, [script, 'record', framework], {
      encoding: 'utf8',
    });
    return replaying(JSON.parse(output));
  };
}

/** What `framework` answers to each request of NOTES_REQUESTS, parsed. */
async function record(framework) {
  const server = await NOTES_SERVERS[framework]();
  const recorded = {};
  for (const [name, request] of Object.entries(NOTES_REQUESTS)) {
    recorded[name] = parseResponse(await recordOne(server, request));
  }
  return recorded;
}

export const NOTES_SERVERS = {
  'restmachine-notes': restmachineNotes,
  'fastify-notes': fastifyNotes,
  'hono-notes': honoNotes,
  'raw-restmachine-notes': rawLike('restmachine-notes'),
  'raw-fastify-notes': rawLike('fastify-notes'),
  'raw-hono-notes': rawLike('hono-notes'),
};

/** For drive.mjs: the servers and requests of this module. */
export const SERVERS = NOTES_SERVERS;
export const REQUESTS = NOTES_REQUESTS;

// `node notes-servers.mjs record <framework>` prints what rawLike replays.
if (process.argv[2] === 'record' && import.meta.url.endsWith(process.argv[1] ?? '')) {
  console.log(JSON.stringify(await record(process.argv[3])));
  process.exit(0);
}
