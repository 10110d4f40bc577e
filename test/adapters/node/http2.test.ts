/**
 * The Node adapter's listener on a `node:http2` server (docs/node.md, "HTTP/2"), over real
 * HTTP/2 on 127.0.0.1 with Node's HTTP/2 client. Node hands the listener its compatibility
 * objects (Http2ServerRequest, Http2ServerResponse), shaped as HTTP/1's but not alike: one
 * response is one stream of a shared connection, which has no socket of its own to cut.
 */
import {
  type ClientHttp2Session,
  connect,
  constants,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeAdapter } from '../../../src/adapters/node/index.js';
import { Response, RestApplication } from '../../../src/index.js';
import { memoryLogger, sleep } from './helpers.js';

interface Served {
  adapter: NodeAdapter;
  server: Http2Server;
  client: ClientHttp2Session;
}

let served: Served | undefined;

afterEach(async () => {
  if (served === undefined) return;
  served.client.destroy();
  await new Promise((done) => served?.server.close(done));
  served = undefined;
});

/** Serves `app` with h2c on a free loopback port, and connects a client to it. */
async function serveH2(app: RestApplication): Promise<Served> {
  const adapter = new NodeAdapter(app);
  // Node's HTTP/2 compatibility API hands the listener objects shaped as HTTP/1's; its types
  // differ by fields the adapter does not read.
  const server = createServer(adapter.listener as unknown as Parameters<typeof createServer>[0]);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  client.on('error', () => undefined);
  served = { adapter, server, client };
  return served;
}

interface Exchange {
  headers: IncomingHttpHeaders | undefined;
  body: string;
  /** The stream's RST_STREAM code (0 when it closed normally or with NO_ERROR). */
  rstCode: number | undefined;
  /** Whether the response ended with END_STREAM, as a whole response does. */
  ended: boolean;
}

/** One request on `client`; resolves once its stream closed, however it closed. */
function exchange(
  client: ClientHttp2Session,
  headers: OutgoingHttpHeaders,
  body?: string | Uint8Array,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const stream = client.request(headers, { endStream: body === undefined });
    let response: IncomingHttpHeaders | undefined;
    let text = '';
    let ended = false;
    stream.on('response', (received) => {
      response = received;
    });
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    stream.on('end', () => {
      ended = true;
    });
    stream.on('error', () => undefined);
    stream.on('close', () =>
      resolve({ headers: response, body: text, rstCode: stream.rstCode, ended }),
    );
    if (body !== undefined) stream.end(body);
  });
}

async function* failingAfterOneChunk(): AsyncGenerator<string> {
  yield 'first chunk\n';
  await sleep(30);
  throw new Error('boom');
}

describe('a response body that fails midway on HTTP/2', () => {
  it('is logged and resets only its own stream: the chunk before the failure arrives, the connection serves on', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    app.get('/fail', () => failingAfterOneChunk());
    app.get(
      '/fail-length',
      () => new Response(200, failingAfterOneChunk(), { headers: { 'content-length': '100' } }),
    );
    app.get('/ok', () => ({ ok: true }));
    const { client } = await serveH2(app);

    const [failed, failedWithLength, alongside] = await Promise.all([
      exchange(client, { ':path': '/fail' }),
      exchange(client, { ':path': '/fail-length' }),
      exchange(client, { ':path': '/ok' }),
    ]);
    for (const cut of [failed, failedWithLength]) {
      expect(cut.headers?.[':status']).toBe(200);
      expect(cut.body).toBe('first chunk\n');
      expect(cut.ended).toBe(false);
      expect(cut.rstCode).toBe(constants.NGHTTP2_INTERNAL_ERROR);
    }
    expect(JSON.parse(alongside.body)).toEqual({ ok: true });
    // The same connection goes on serving.
    const after = await exchange(client, { ':path': '/ok' });
    expect(after.headers?.[':status']).toBe(200);
    expect(lines.filter((line) => line.message === 'Response body stream failed')).toHaveLength(2);
  });
});
