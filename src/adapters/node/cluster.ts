/**
 * serveCluster(): one server process per core with `node:cluster`, since one Node process runs
 * JavaScript on one core.
 *
 * The same script runs in the primary and in every worker. The primary only forks, watches and
 * stops workers (see cluster-primary.ts); each worker builds its own application (so connections
 * and caches are never shared across processes) and serves it on the shared port.
 */
import cluster from 'node:cluster';
import { knownOptions } from '../../app/options.js';
import { SetupError } from '../../errors.js';
import {
  CLUSTER_PORT,
  LISTEN_PORT,
  LISTENING,
  type Listening,
  SHUTDOWN,
  STARTUP_FAILED,
  type StartupFailed,
} from './cluster-messages.js';
import { startPrimary } from './cluster-primary.js';
import type { ClusterHandle, ClusterOptions } from './cluster-types.js';
import { SERVE_OPTIONS, type ServeOptions, serve } from './serve.js';
import type { ServedApplication } from './types.js';

const CLUSTER_OPTIONS: readonly string[] = [
  ...Object.keys({ workers: true } satisfies Record<
    Exclude<keyof ClusterOptions, keyof ServeOptions>,
    true
  >),
  ...SERVE_OPTIONS,
];

/**
 * Serves an application from several worker processes sharing one port.
 *
 * Call it from your entry script with a function that builds the application: the primary
 * never calls it, each worker calls it once. Resolves in the primary when every worker
 * listens (rejecting, with the worker's message, when one fails to start); resolves in a
 * worker when that worker listens. Workers that die later are replaced. SIGTERM/SIGINT (unless
 * `handleSignals: false`) shut every process down gracefully; a second one ends them at once.
 *
 * @example
 * import { serveCluster } from 'restmachine/node';
 * import { createApp } from './app.js';
 *
 * const cluster = await serveCluster(createApp, { port: 8080 });
 * if (cluster.role === 'primary') console.log(`Listening on ${cluster.url}`);
 */
export function serveCluster(
  createApp: () => ServedApplication | Promise<ServedApplication>,
  options: ClusterOptions = {},
): Promise<ClusterHandle> {
  try {
    knownOptions('serveCluster()', options, CLUSTER_OPTIONS);
  } catch (error) {
    return Promise.reject(error);
  }
  return cluster.isPrimary ? startPrimary(options) : startWorker(createApp, options);
}

async function startWorker(
  createApp: () => ServedApplication | Promise<ServedApplication>,
  options: ClusterOptions,
): Promise<ClusterHandle> {
  let app: ServedApplication;
  let handle: Awaited<ReturnType<typeof serve>>;
  // The primary may ask for shutdown while this worker still starts; Node drops a message
  // nobody listens for, so the request is noted now and honoured once the server is up.
  let stopAsked = false;
  const onEarlyMessage = (message: unknown): void => {
    if ((message as { type?: unknown } | null)?.type === SHUTDOWN) stopAsked = true;
  };
  process.on('message', onEarlyMessage);
  try {
    app = await createApp();
    // Signals are handled here rather than in serve(), so that the worker also leaves the
    // cluster (disconnects) once it has shut down, and so can exit.
    const { workers: _workers, ...serveOptions } = options;
    handle = await serveOnClusterPort(app, { ...serveOptions, handleSignals: false });
  } catch (error) {
    process.off('message', onEarlyMessage);
    const message = error instanceof Error ? error.message : String(error);
    // Tell the primary why, then leave the cluster: a worker still connected to the primary
    // would never exit on its own.
    process.send?.({ type: STARTUP_FAILED, message } satisfies StartupFailed, undefined, {}, () => {
      if (process.connected) process.disconnect();
    });
    throw error;
  }
  // Without a callback, a send to a primary already gone would be an uncaught 'error'; the
  // 'disconnect' listener below is what handles that case.
  const listening: Listening = { type: LISTENING, port: handle.port };
  if (process.connected) process.send?.(listening, undefined, {}, () => undefined);
  // After its shutdown the worker leaves the cluster and exits, with code 1 when the shutdown
  // failed, so that the primary (and its supervisor) see the failure.
  const leave = (code: number): void => {
    process.off('message', onMessage);
    if (code !== 0) process.exitCode = code;
    if (!process.connected) {
      process.exit();
      return;
    }
    // Node's cluster code ends a worker whose channel to the primary closes with exit code 0,
    // at once, unless the worker left through cluster.worker.disconnect().
    process.once('disconnect', () => process.exit());
    cluster.worker?.disconnect();
  };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= handle.close().then(
      () => leave(0),
      (error: unknown) => {
        app.logger.error('Shutdown failed', { error });
        leave(1);
        throw error;
      },
    );
    return closing;
  };
  // Shutdowns nobody awaits: a failure is logged and ends the worker with code 1 (see close).
  const closeUnawaited = (): void => {
    close().catch(() => undefined);
  };
  const onMessage = (message: unknown): void => {
    if ((message as { type?: unknown } | null)?.type === SHUTDOWN) closeUnawaited();
  };
  process.off('message', onEarlyMessage);
  process.on('message', onMessage);
  if (stopAsked) closeUnawaited();
  // The primary is gone (killed, or ended by a second signal after it killed its workers):
  // nobody will restart or stop this worker, so it shuts down gracefully, then exits. Node's
  // cluster code would end it at once, cutting requests in flight and skipping its shutdown
  // handlers, unless this flag says the worker leaves on purpose.
  if (cluster.worker !== undefined) cluster.worker.exitedAfterDisconnect = true;
  process.once('disconnect', closeUnawaited);
  if (options.handleSignals ?? true) {
    process.once('SIGTERM', closeUnawaited);
    process.once('SIGINT', closeUnawaited);
  }
  return {
    role: 'worker',
    port: handle.port,
    host: handle.host,
    url: handle.url,
    server: handle.server,
    close,
  };
}

/**
 * serve() in a worker, on the port the primary says (see LISTEN_PORT): a replacement that could
 * not get the cluster's port fails to start, and is replaced in turn.
 */
async function serveOnClusterPort(
  app: ServedApplication,
  options: ServeOptions,
): Promise<Awaited<ReturnType<typeof serve>>> {
  const clusterPort = process.env[CLUSTER_PORT];
  if (clusterPort === undefined) return serve(app, options);
  // Without a LISTEN_PORT the worker asks as the first workers did (from the same options).
  const listenPort = process.env[LISTEN_PORT];
  let handle: Awaited<ReturnType<typeof serve>>;
  try {
    handle = await serve(
      app,
      listenPort === undefined ? options : { ...options, port: Number(listenPort) },
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new SetupError(
      'STARTUP_FAILED',
      `port ${clusterPort}, the cluster's, was taken by another process while no worker held it`,
      { cause: error },
    );
  }
  if (handle.port === Number(clusterPort)) return handle;
  // The last worker holding the shared socket died while this one started: Node closed the
  // socket, and this worker got a new port. The next replacement asks for the concrete one.
  await handle.close().catch((error: unknown) => {
    app.logger.error('Shutdown failed', { error });
  });
  throw new SetupError(
    'STARTUP_FAILED',
    `every other worker died while this one started, so it got port ${handle.port}, not the cluster's ${clusterPort}`,
  );
}
