/**
 * The compression benchmark's servers, driven by drive.mjs like servers.mjs's: each answers
 * GET / with the same 100 KB JSON document, gzip-compressed for a client that sends
 * `Accept-Encoding: gzip` (drive.mjs adds the header for these servers). restmachine from
 * `dist/` (run `node scripts/build.mjs` first) with `compress()`, Fastify with
 * `@fastify/compress`, and a raw `node:http` server calling `zlib.gzip` as the floor.
 */
import { createServer } from 'node:http';
import { gzip } from 'node:zlib';

/** About 100 KB of JSON: records of the kind an API lists, varied enough not to be trivial. */
export const LARGE_DOCUMENT = {
  items: Array.from({ length: 800 }, (_, i) => ({
    id: i,
    sku: `SKU-${(i * 7919) % 100000}`,
    name: `Product number ${i}`,
    price: Math.round(((i * 37) % 1000) * 1.7) / 100,
    tags: ['catalogue', i % 2 === 0 ? 'even' : 'odd', `group-${i % 13}`],
    inStock: i % 3 !== 0,
  })),
};

/** The request header every compression server is sent. */
export const COMPRESS_HEADERS = 'Accept-Encoding: gzip\r\n';

async function rawGzip() {
  const text = () => JSON.stringify(LARGE_DOCUMENT);
  return createServer((_req, res) => {
    gzip(text(), (error, body) => {
      if (error) throw error;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        Vary: 'Accept-Encoding',
        'Content-Length': body.length,
      });
      res.end(body);
    });
  });
}

async function fastifyCompress() {
  const { default: Fastify } = await import('fastify');
  const { default: compress } = await import('@fastify/compress');
  const app = Fastify({ logger: false });
  await app.register(compress, { encodings: ['br', 'gzip'] });
  app.get('/', async () => LARGE_DOCUMENT);
  await app.ready();
  return app.server;
}

async function restmachineCompress() {
  const { RestApplication } = await import('../../dist/index.js');
  const { NodeAdapter } = await import('../../dist/adapters/node/index.js');
  const app = new RestApplication().compress();
  app.get('/', () => LARGE_DOCUMENT);
  await app.startup();
  return createServer(new NodeAdapter(app).listener);
}

export const COMPRESS_SERVERS = {
  'raw-gzip': rawGzip,
  'fastify-compress': fastifyCompress,
  'restmachine-compress': restmachineCompress,
};

/** For drive.mjs: the servers of this module, and what every request adds to its headers. */
export const SERVERS = COMPRESS_SERVERS;
export const HEADERS = COMPRESS_HEADERS;
