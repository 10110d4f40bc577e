/**
 * The servers the upload instruction count compares, as `http.Server`s that never listen, each
 * taking POST /upload with one 1 MB file (multipart/form-data) and answering its field, name
 * and size as JSON, with the file read whole into memory on every side:
 * - `restmachine`: `files` (from `dist/`; run `node scripts/build.mjs` first), the file under
 *   the 1 MiB spill threshold, so in memory as on the others;
 * - `fastify`: `@fastify/multipart`'s `request.file()` and `toBuffer()`;
 * - `busboy`: raw `node:http` piping into `@fastify/busboy`, the parser both frameworks use,
 *   for the floor.
 * Driven by drive.mjs: `node drive.mjs <server> UPLOAD <requests> ./upload-servers.mjs`.
 */
import { createServer } from 'node:http';

const MB = 1_000_000;
const BOUNDARY = '----restmachineBenchBoundary7MA4YWxkTrZu0gW';
const FILE = Buffer.alloc(MB);
for (let i = 0; i < FILE.length; i++) FILE[i] = 0x20 + ((i * 7) % 90);
const HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="upload"; filename="one-megabyte.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n',
);
const TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
const BODY = Buffer.concat([HEAD, FILE, TAIL]);

/** The request every connection sends, again and again (keep-alive). */
export const REQUEST = Buffer.concat([
  Buffer.from(
    'POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: wrk\r\nAccept: */*\r\n' +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${BODY.length}\r\n\r\n`,
  ),
  BODY,
]);

async function restmachine() {
  const { RestApplication } = await import('../../dist/index.js');
  const { NodeAdapter } = await import('../../dist/adapters/node/index.js');
  const app = new RestApplication();
  app.post('/upload', ({ files }) => {
    const [file] = files;
    return { field: file.field, filename: file.filename, size: file.size };
  });
  await app.startup();
  const adapter = new NodeAdapter(app);
  const server = createServer(adapter.listener);
  server.on('checkContinue', adapter.checkContinueListener);
  return server;
}

async function fastify() {
  const { default: Fastify } = await import('fastify');
  const { default: multipart } = await import('@fastify/multipart');
  const app = Fastify({ logger: false });
  await app.register(multipart, { limits: { fileSize: 10 * 1024 * 1024 } });
  app.post('/upload', async (request) => {
    const file = await request.file();
    const content = await file.toBuffer();
    return { field: file.fieldname, filename: file.filename, size: content.length };
  });
  await app.ready();
  return app.server;
}

async function busboy() {
  const { Busboy } = await import('@fastify/busboy');
  return createServer((req, res) => {
    const parser = Busboy({ headers: req.headers });
    let answer;
    parser.on('file', (field, stream, filename) => {
      const chunks = [];
      stream.on('data', (chunk) => chunks.push(chunk));
      stream.on('end', () => {
        const size = Buffer.concat(chunks).length;
        answer = JSON.stringify({ field, filename, size });
      });
    });
    parser.on('finish', () => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(answer),
      });
      res.end(answer);
    });
    req.pipe(parser);
  });
}

export const SERVERS = { restmachine, fastify, busboy };
