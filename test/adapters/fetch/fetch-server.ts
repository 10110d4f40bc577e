/**
 * A Fetch-style Node server for the Fetch adapter's tests: `@hono/node-server` listening on
 * 127.0.0.1, its origin, and a close that also ends the connections still open.
 */
import type { AddressInfo } from 'node:net';
import { serve as serveFetch } from '@hono/node-server';

type FetchCallback = Parameters<typeof serveFetch>[0]['fetch'];

export interface FetchServer {
  readonly port: number;
  readonly origin: string;
  close(): Promise<void>;
}

export async function listenFetch(fetch: FetchCallback): Promise<FetchServer> {
  const server = serveFetch({
    fetch,
    port: 0,
    hostname: '127.0.0.1',
    overrideGlobalObjects: false,
  });
  await new Promise<void>((resolve) => {
    if (server.listening) resolve();
    else server.once('listening', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
