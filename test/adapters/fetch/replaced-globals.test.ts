/**
 * docs/fetch.md's Node setup as written: `@hono/node-server`'s `serve()` with its defaults, which
 * replace the global `Response` with a class of its own. What `fetch()` returns is then not an
 * instance of the global, and a handler that relays it must still send the upstream's answer.
 * (This file replaces the globals for its own worker only.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as serveFetch } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchAdapter } from '../../../src/adapters/fetch/index.js';
import { type ServeHandle, serve } from '../../../src/adapters/node/index.js';
import { RestApplication, silentLogger } from '../../../src/index.js';

let upstream: Server;
let upstreamUrl: string;
let fetchServer: ReturnType<typeof serveFetch>;
let fetchOrigin: string;
let nodeServer: ServeHandle;

beforeAll(async () => {
  upstream = createServer((_req, res) => {
    res.writeHead(201, [
      'Content-Type',
      'application/json',
      'Set-Cookie',
      'a=1',
      'Set-Cookie',
      'b=2',
    ]);
    res.end('{"temp":21}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/weather`;
  const app = new RestApplication({ logger: silentLogger });
  app.get('/weather', () => fetch(upstreamUrl));
  // The defaults, as the docs show them: overrideGlobalObjects is on.
  fetchServer = serveFetch({ fetch: new FetchAdapter(app).fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => {
    if (fetchServer.listening) resolve();
    else fetchServer.once('listening', () => resolve());
  });
  fetchOrigin = `http://127.0.0.1:${(fetchServer.address() as AddressInfo).port}`;
  nodeServer = await serve(app, { port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await nodeServer.close();
  await new Promise((resolve) => fetchServer.close(resolve));
  await new Promise((resolve) => upstream.close(resolve));
});

describe('a fetch() response relayed once the global Response is replaced', () => {
  it('is not an instance of the global here (the condition this file tests)', async () => {
    expect((await fetch(upstreamUrl)) instanceof globalThis.Response).toBe(false);
  });

  for (const [name, origin] of [
    ['the Fetch adapter under @hono/node-server', () => fetchOrigin],
    ['the Node adapter in the same process', () => nodeServer.url.replace(/\/$/, '')],
  ] as const) {
    it(`${name} sends the upstream's status, cookies and body`, async () => {
      const response = await fetch(`${origin()}/weather`);
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      expect(await response.text()).toBe('{"temp":21}');
    });
  }
});
