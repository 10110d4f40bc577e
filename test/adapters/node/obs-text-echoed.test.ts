/**
 * Header values with obs-text that no handler set through the headers: a client's Origin echoed
 * by CORS, an entity tag kept as given. The Node adapter looks for obs-text in a head only once
 * the process has accepted some (src/http/header-fields.ts), so each case starts from fresh
 * modules, where nothing has been accepted yet.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServeHandle } from '../../../src/adapters/node/index.js';

let server: ServeHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Library = typeof import('../../../src/index.js');

async function freshServer(
  register: (app: InstanceType<Library['RestApplication']>, library: Library) => void,
): Promise<number> {
  vi.resetModules();
  const library: Library = await import('../../../src/index.js');
  const { serve } = await import('../../../src/adapters/node/index.js');
  const app = new library.RestApplication({ logger: library.silentLogger });
  register(app, library);
  server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
  return server.port;
}

/** The head of the answer to `request`, one character per octet. */
async function head(port: number, request: string): Promise<string[]> {
  const { rawExchange } = await import('./helpers.js');
  const exchange = await rawExchange(port, Buffer.from(request, 'latin1'));
  return exchange.slice(0, exchange.indexOf('\r\n\r\n')).split('\r\n');
}

describe('obs-text the library echoes, sent by the Node adapter before a text body', () => {
  it('keeps an entity tag with obs-text one octet per character', async () => {
    const port = await freshServer((app, { Response }) => {
      app.get('/tag', () => new Response(200, 'text').setEtag('"caf\u00e9"'));
    });
    const lines = await head(port, 'GET /tag HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(lines).toContain('etag: "caf\u00e9"');
  });

  it('echoes an Origin with obs-text as the octets the client sent', async () => {
    const port = await freshServer((app) => {
      app.get('/cors', () => 'text').cors({ origin: () => true, credentials: true });
    });
    const origin = 'https://caf\u00e9.example';
    const lines = await head(
      port,
      `GET /cors HTTP/1.1\r\nHost: x\r\nOrigin: ${origin}\r\nConnection: close\r\n\r\n`,
    );
    expect(lines).toContain(`access-control-allow-origin: ${origin}`);
  });
});
