/**
 * serve(): an application on its own Node server, with startup before listening and a graceful
 * shutdown.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { SecureContextOptions, TlsOptions } from 'node:tls';
import { knownOptions } from '../../app/options.js';
import { SetupError } from '../../errors.js';
import { NODE_ADAPTER_OPTIONS, NodeAdapter } from './adapter.js';
import type { NodeAdapterOptions, ServedApplication } from './types.js';

/** Options of `serve(app, options)`. */
export interface ServeOptions extends NodeAdapterOptions {
  /** The port; `0` picks a free one. Default: `PORT` from the environment, else 3000. */
  port?: number | undefined;
  /** The interface to listen on. Default: `HOST` from the environment, else `127.0.0.1`. */
  host?: string | undefined;
  /** TLS settings (`key`, `cert`, `ca`, `requestCert`, ...): when given, the server is HTTPS. */
  tls?: (TlsOptions & SecureContextOptions) | undefined;
  /**
   * Shut down gracefully on SIGTERM and SIGINT (default `true`). The first signal starts
   * `close()` and removes these listeners, so a second Ctrl-C ends the process at once.
   */
  handleSignals?: boolean | undefined;
  /**
   * How long `close()` lets in-flight requests run before cutting their connections, in
   * milliseconds (default 10 000). Cut requests then get up to one second more to clean up
   * before the shutdown handlers run.
   */
  shutdownTimeout?: number | undefined;
  /** Time to receive a request's headers, in milliseconds (default 30 000). */
  headersTimeout?: number | undefined;
  /** Time to receive a whole request, body included, in milliseconds (default 120 000). */
  requestTimeout?: number | undefined;
  /**
   * How long an idle keep-alive connection stays open, in milliseconds (default 5 000). Behind
   * a load balancer, make it longer than the balancer's idle timeout (for example 65 000
   * behind an AWS ALB), or the balancer may reuse a connection the server is closing.
   */
  keepAliveTimeout?: number | undefined;
}
/** The options of `serve()` besides the adapter's. */
const OWN_SERVE_OPTIONS = Object.keys({
  port: true,
  host: true,
  tls: true,
  handleSignals: true,
  shutdownTimeout: true,
  headersTimeout: true,
  requestTimeout: true,
  keepAliveTimeout: true,
} satisfies Record<Exclude<keyof ServeOptions, keyof NodeAdapterOptions>, true>);
export const SERVE_OPTIONS: readonly string[] = [...OWN_SERVE_OPTIONS, ...NODE_ADAPTER_OPTIONS];

/** The options `serve()` hands on to its `NodeAdapter`: those the adapter takes. */
function adapterOptions(options: ServeOptions): NodeAdapterOptions {
  const picked: Record<string, unknown> = {};
  for (const name of NODE_ADAPTER_OPTIONS) {
    if (name in options) picked[name] = options[name as keyof NodeAdapterOptions];
  }
  return picked;
}

/** What `serve()` resolves to (docs/node.md). */
export interface ServeHandle {
  /** The port listened on (the one picked when `0` was asked for). */
  readonly port: number;
  readonly host: string;
  /** `http://host:port` (or `https://`), ready to print. */
  readonly url: string;
  readonly server: Server | HttpsServer;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to `shutdownTimeout`,
   * then cuts them and gives them up to one second to settle), then runs the application's
   * shutdown handlers. Calling it again returns
   * the same promise.
   */
  close(): Promise<void>;
}

const DEFAULT_PORT = 3000;
const DEFAULT_HOST = '127.0.0.1';

function resolvePort(option: number | undefined): number {
  const source = option ?? process.env.PORT;
  if (source === undefined || source === '') return DEFAULT_PORT;
  const port = typeof source === 'number' ? source : Number(source);
  if (
    !Number.isInteger(port) ||
    port < 0 ||
    port > 65535 ||
    (typeof source === 'string' && !/^\d+$/.test(source))
  ) {
    const from = option === undefined ? 'PORT' : 'port';
    throw new SetupError(
      'INVALID_OPTION',
      `${from} must be an integer from 0 to 65535, got ${JSON.stringify(source)}`,
    );
  }
  return port;
}

/** The host to listen on: the option, else `HOST`, else `127.0.0.1`. */
export function resolveHost(option: string | undefined): string {
  const host = option ?? process.env.HOST;
  return host === undefined || host === '' ? DEFAULT_HOST : host;
}

/** The longest delay a Node timer keeps; a longer one fires after 1 ms. */
export const LONGEST_TIMER = 2_147_483_647;

export function checkDuration(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new SetupError('INVALID_OPTION', `${name} must be a number of milliseconds >= 0`);
  }
  if (value > LONGEST_TIMER) {
    throw new SetupError(
      'INVALID_OPTION',
      `${name} must be at most ${LONGEST_TIMER} ms (about 24.8 days), the longest timer Node keeps; got ${value}`,
    );
  }
  return value;
}

/** The URL to print for a server. */
export function formatUrl(protocol: string, host: string, port: number): string {
  // An IPv6 literal needs brackets in a URL (RFC 3986 §3.2.2).
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${protocol}://${shown}:${port}`;
}

function listen(server: Server | HttpsServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Starts an application on a Node HTTP (or HTTPS) server.
 *
 * Runs the application's startup handlers first, then listens, then resolves. A failed startup
 * or a port taken rejects, nothing listens, and the shutdown handlers release what startup
 * opened. Options win over the `PORT`/`HOST` environment variables, which win
 * over `127.0.0.1:3000`. It never calls `process.exit`.
 *
 * @example
 * import { serve } from 'restmachine/node';
 *
 * const server = await serve(app, { port: 8080 });
 * console.log(`Listening on ${server.url}`);
 * // later, or on SIGTERM/SIGINT automatically:
 * await server.close();
 */
export async function serve(
  app: ServedApplication,
  options: ServeOptions = {},
): Promise<ServeHandle> {
  knownOptions('serve()', options, SERVE_OPTIONS);
  if (app.stopping === true) {
    // Its shutdown handlers ran: served again, it could only answer 503 to every request.
    throw new Error(
      "serve(): this application was shut down (by shutdown(), a server's close(), or a serve() that could not start or listen); serve a new application",
    );
  }
  const port = resolvePort(options.port);
  const host = resolveHost(options.host);
  const shutdownTimeout = checkDuration('shutdownTimeout', options.shutdownTimeout, 10_000);
  const headersTimeout = checkDuration('headersTimeout', options.headersTimeout, 30_000);
  const requestTimeout = checkDuration('requestTimeout', options.requestTimeout, 120_000);
  const keepAliveTimeout = checkDuration('keepAliveTimeout', options.keepAliveTimeout, 5_000);
  const adapter = new NodeAdapter(app, adapterOptions(options));
  // The server is made before startup: options it refuses (a TLS key that is not PEM) then fail
  // before startup handlers open anything that would have to be released.
  const serverOptions = {
    // Node checks the header and request timeouts on this interval; its default (30 s) would let
    // a slow client overstay a short timeout by that much.
    connectionsCheckingInterval: Math.max(
      250,
      Math.min(5_000, headersTimeout || 5_000, requestTimeout || 5_000),
    ),
  };
  const server =
    options.tls === undefined
      ? createServer(serverOptions, adapter.listener)
      : createHttpsServer({ ...serverOptions, ...options.tls }, adapter.listener);
  server.on('checkContinue', adapter.checkContinueListener);
  server.on('connect', adapter.connectListener);
  // A TLS connection is known to the HTTP layer only once its handshake is done; one that never
  // finishes it (a scanner, a half-open client) would hold close() for Node's 120 s handshake
  // timeout, so TLS servers keep their raw connections to cut them at shutdownTimeout.
  const handshaking = options.tls === undefined ? undefined : new Set<Socket>();
  if (handshaking !== undefined) server.on('connection', keepIn(handshaking));
  // Every connection as the HTTP layer gets it (after its TLS handshake), to find at shutdown
  // those that never sent a byte (see drainServer).
  const connections = new Set<Socket>();
  server.on(options.tls === undefined ? 'connection' : 'secureConnection', keepIn(connections));
  // Bounded time for headers and for whole requests keeps slow clients (slowloris) from
  // holding connections open forever; 0 turns a limit off, as in Node.
  server.headersTimeout =
    requestTimeout > 0 && headersTimeout > requestTimeout ? requestTimeout : headersTimeout;
  server.requestTimeout = requestTimeout;
  server.keepAliveTimeout = keepAliveTimeout;
  // Node keeps the first 2,000 header lines and drops the rest without a word (a proxy's own
  // X-Forwarded-For line among them); without the count, the 16 KiB header size bounds a request
  // and a larger one is a 431.
  server.maxHeadersCount = 0;

  try {
    await app.startup();
  } catch (error) {
    // The handlers before the one that failed may have opened resources (a pool, a timer) that
    // would keep the process alive after the caller gave up; the shutdown handlers of those that
    // started release them, and the ones needing a result never made are skipped.
    await shutdownAfterFailure(app, 'startup');
    throw error;
  }

  let boundPort: number;
  try {
    boundPort = await listen(server, port, host);
  } catch (error) {
    // Startup may have opened resources (pools, files); release them before giving up.
    await shutdownAfterFailure(app, 'listen');
    throw error;
  }

  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    app.logger.info(`Received ${signal}; shutting down`, { signal });
    handle.close().catch((error: unknown) => {
      app.logger.error('Shutdown failed', { error });
      // The process still ends by itself, but tells its supervisor the shutdown went wrong.
      process.exitCode = 1;
    });
  };
  const handleSignals = options.handleSignals ?? true;
  if (handleSignals) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }

  const handle: ServeHandle = {
    port: boundPort,
    host,
    url: formatUrl(options.tls === undefined ? 'http' : 'https', host, boundPort),
    server,
    close() {
      closing ??= (async () => {
        if (handleSignals) {
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
        }
        await drainServer(server, adapter, shutdownTimeout, connections, handshaking);
        await app.shutdown();
      })();
      return closing;
    },
  };
  return handle;
}

/** Runs the shutdown handlers after `serve()` failed; their own failure is logged, not thrown. */
function shutdownAfterFailure(app: ServedApplication, failed: 'startup' | 'listen'): Promise<void> {
  return app.shutdown().catch((error: unknown) => {
    app.logger.error(`Shutdown after a failed ${failed} also failed`, { error });
  });
}

/** A connection listener that keeps each socket in `set` while it is open. */
function keepIn(set: Set<Socket>): (socket: Socket) => void {
  return (socket) => {
    set.add(socket);
    socket.once('close', () => set.delete(socket));
  };
}

/**
 * Closes the connections that have not sent a byte: a browser's preconnect, opened in case a
 * request follows. Node counts a connection as idle only between requests, not before its
 * first, so `server.close()` and `closeIdleConnections()` would leave it open until
 * `shutdownTimeout`, though no request is in progress on it. One that sent part of a request
 * is left to finish it, as a request in flight.
 */
function closeSilent(connections: ReadonlySet<Socket>): void {
  for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
}

/**
 * How long requests cut at `shutdownTimeout` get to settle (their `signal` aborted, a stream's
 * `finally` run, the handler's promise settled) before the shutdown handlers run anyway, in
 * milliseconds (docs/node.md "Shutdown").
 */
const SETTLE_GRACE = 1_000;

/**
 * Stops accepting, lets in-flight requests finish, and cuts whatever is left after `grace`
 * milliseconds. Idle keep-alive connections, and connections that never sent a request, are
 * closed at once; busy ones are told to close after their current response. Resolves once every
 * connection is gone and every request has settled, or `SETTLE_GRACE` after the cut if some
 * never do.
 */
function drainServer(
  server: Server | HttpsServer,
  adapter: NodeAdapter,
  grace: number,
  connections: ReadonlySet<Socket>,
  rawConnections: ReadonlySet<Socket> | undefined,
): Promise<void> {
  adapter.drain();
  return new Promise((resolve) => {
    let closed = false;
    let giveUpAt = Number.POSITIVE_INFINITY;
    const timer = setTimeout(() => {
      server.closeAllConnections();
      for (const socket of rawConnections ?? []) socket.destroy();
      giveUpAt = Date.now() + SETTLE_GRACE;
    }, grace);
    // A response that was already on its way when draining began did not ask its client to
    // close; its connection turns idle afterwards and is closed on the next sweep. Once the
    // connections are gone, the requests that ran on them (a handler the client left, a cut
    // stream still tearing down) are polled until they settle: polling costs nothing per request.
    const poll = setInterval(() => {
      if (!closed) {
        server.closeIdleConnections();
        closeSilent(connections);
      } else if (adapter.inFlight === 0 || Date.now() >= giveUpAt) done();
    }, 25);
    const done = (): void => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve();
    };
    // `close()` stops listening and (Node >= 19) closes idle connections; its callback runs
    // once every connection is gone, including those still serving a request.
    closeSilent(connections);
    server.close(() => {
      closed = true;
      if (adapter.inFlight === 0) done();
    });
  });
}
