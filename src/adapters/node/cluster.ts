/**
 * serveCluster(): one server process per core with `node:cluster`, since one Node process runs
 * JavaScript on one core.
 *
 * The same script runs in the primary and in every worker. The primary only forks, watches and
 * stops workers; each worker builds its own application (so connections and caches are never
 * shared across processes) and serves it on the shared port.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { availableParallelism } from 'node:os';
import { knownOptions } from '../../app/options.js';
import { SetupError } from '../../errors.js';
import {
  checkDuration,
  formatUrl,
  LONGEST_TIMER,
  resolveHost,
  SERVE_OPTIONS,
  type ServeOptions,
  serve,
} from './serve.js';
import type { ServedApplication } from './types.js';

/** Options of `serveCluster()`: those of `serve()`, plus the number of workers. */
export interface ClusterOptions extends ServeOptions {
  /** Worker processes to run (default: `os.availableParallelism()`). */
  workers?: number;
}
const CLUSTER_OPTIONS: readonly string[] = [
  ...Object.keys({ workers: true } satisfies Record<
    Exclude<keyof ClusterOptions, keyof ServeOptions>,
    true
  >),
  ...SERVE_OPTIONS,
];

/** What `serveCluster()` resolves to, in the primary and in each worker. */
export interface ClusterHandle {
  /** `primary` in the process that forked the workers, `worker` in each worker. */
  readonly role: 'primary' | 'worker';
  readonly port: number;
  readonly host: string;
  readonly url: string;
  /** The worker's server (`undefined` in the primary, which serves nothing itself). */
  readonly server: Server | HttpsServer | undefined;
  /**
   * In the primary: asks every worker to shut down gracefully and waits for them to exit. In a
   * worker: closes this worker's server and runs its shutdown handlers.
   */
  close(): Promise<void>;
}

const SHUTDOWN = 'restmachine:shutdown';
// What a replacement worker passes to listen(), and the port it must end up on. Node's cluster
// shares a listening socket among the workers that ask for the same address and port: with
// `port: 0` a replacement asks for 0 too while other workers listen, and so joins their socket
// (asking for the concrete port would be another socket, and EADDRINUSE). Once no worker
// listens, Node has closed that socket, and a port-0 replacement would pick a new free port, so
// the cluster's `url` would lead nowhere: it asks for the concrete port instead.
const LISTEN_PORT = 'RESTMACHINE_CLUSTER_LISTEN_PORT';
const CLUSTER_PORT = 'RESTMACHINE_CLUSTER_PORT';
const STARTUP_FAILED = 'restmachine:startup-failed';
// A worker tells the primary the port its application's server listens on. The cluster's
// 'listening' event would not do: it fires for every server a worker opens, and a startup
// handler may open one of its own first (a metrics endpoint on another port), whose port would
// then become the cluster's.
const LISTENING = 'restmachine:listening';
// A worker that dies is replaced after a pause that doubles with each replacement that dies in
// turn (1 s, 2 s, 4 s... up to 30 s), so a fault that kills every new worker (a database that
// is down, a bad deploy) neither makes the primary spin nor floods the log. A worker that
// served for a while (STEADY) starts the count again.
const FIRST_RESTART_DELAY = 1_000;
const LONGEST_RESTART_DELAY = 30_000;
const STEADY = 30_000;

/** The pause before the `failures`-th replacement in a row (1 for the first). */
function restartDelay(failures: number): number {
  return Math.min(FIRST_RESTART_DELAY * 2 ** (failures - 1), LONGEST_RESTART_DELAY);
}

interface StartupFailed {
  type: typeof STARTUP_FAILED;
  message: string;
}

function isStartupFailed(message: unknown): message is StartupFailed {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as StartupFailed).type === STARTUP_FAILED
  );
}

interface Listening {
  type: typeof LISTENING;
  port: number;
}

function isListening(message: unknown): message is Listening {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as Listening).type === LISTENING &&
    typeof (message as Listening).port === 'number'
  );
}

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

function startPrimary(options: ClusterOptions): Promise<ClusterHandle> {
  const count = options.workers ?? availableParallelism();
  if (!Number.isInteger(count) || count < 1) {
    return Promise.reject(
      new SetupError('INVALID_OPTION', `workers must be an integer >= 1, got ${String(count)}`),
    );
  }
  let shutdownTimeout: number;
  try {
    shutdownTimeout = checkDuration('shutdownTimeout', options.shutdownTimeout, 10_000);
  } catch (error) {
    return Promise.reject(error);
  }
  const handleSignals = options.handleSignals ?? true;
  const workers = new Set<Worker>();
  let closing: Promise<void> | undefined;
  let started = false;
  // Replacements in a row whose workers died before serving for STEADY ms.
  let failures = 0;
  // Replacements waiting for their pause to end.
  const restarts = new Set<NodeJS.Timeout>();

  return new Promise<ClusterHandle>((resolve, reject) => {
    const listening = new Set<Worker>();
    // The port of the first worker's application (see LISTENING).
    let clusterPort: number | undefined;

    // The port each replacement was told to listen on (see LISTEN_PORT); the first workers,
    // and those sharing their socket, listen on the port of the options.
    const listenPorts = new Map<Worker, string>();

    const fork = (): void => {
      let env: Record<string, string> | undefined;
      let listenPort: string | undefined;
      if (clusterPort !== undefined) {
        // Asked as a listening worker asked, the replacement shares that worker's socket.
        const sharing = listening.values().next();
        listenPort = sharing.done === true ? String(clusterPort) : listenPorts.get(sharing.value);
        env = { [CLUSTER_PORT]: String(clusterPort) };
        if (listenPort !== undefined) env[LISTEN_PORT] = listenPort;
      }
      const worker = cluster.fork(env);
      if (listenPort !== undefined) listenPorts.set(worker, listenPort);
      let listeningSince: number | undefined;
      workers.add(worker);
      // A message to a worker that is already exiting fails with EPIPE; its 'exit' event is
      // what the primary acts on, so the failed send must not crash the primary.
      worker.on('error', () => undefined);
      // Why the worker could not start, when it said so (it then exits with code 0).
      let startupFailure: string | undefined;
      const onListening = (port: number): void => {
        clusterPort ??= port;
        listening.add(worker);
        listeningSince = Date.now();
        // Node drops a message to a worker with no 'message' listener yet: a shutdown asked
        // while the worker's script still loaded its modules, before serveCluster() ran, was
        // lost. A listening worker has listened for messages since serveCluster() began, so
        // it hears this one (a worker that heard both closes once).
        if (closing !== undefined && worker.isConnected()) worker.send({ type: SHUTDOWN });
        // Once shutdown began (a signal while workers started), the cluster is never ready.
        if (!started && closing === undefined && listening.size === count) {
          started = true;
          resolve(primaryHandle(clusterPort));
        }
      };
      worker.on('message', (message: unknown) => {
        if (isListening(message)) {
          onListening(message.port);
          return;
        }
        if (!isStartupFailed(message)) return;
        startupFailure = message.message;
        if (!started) {
          fail(new SetupError('STARTUP_FAILED', `A worker failed to start: ${message.message}`));
        }
      });
      worker.on('exit', (code, signal) => {
        workers.delete(worker);
        listening.delete(worker);
        listenPorts.delete(worker);
        if (closing !== undefined) return;
        if (!started) {
          fail(
            new SetupError(
              'STARTUP_FAILED',
              `A worker exited before listening (${signal ?? `exit code ${code}`})`,
            ),
          );
          return;
        }
        // A worker that died while serving is replaced, after a pause that grows while the
        // replacements die too (a replacement that fails to start exits like one that crashed).
        const steady = listeningSince !== undefined && Date.now() - listeningSince >= STEADY;
        failures = steady ? 1 : failures + 1;
        const delay = restartDelay(failures);
        const why =
          startupFailure === undefined
            ? `exited (${signal ?? `exit code ${code}`})`
            : `failed to start (${startupFailure})`;
        process.emitWarning(
          `restmachine worker ${worker.process.pid} ${why}; starting another in ${delay / 1_000} s`,
        );
        // Not unref'd: when the last worker died, this timer is all that keeps the primary
        // alive until the replacement is forked. close() clears it.
        const restart = setTimeout(() => {
          restarts.delete(restart);
          if (closing === undefined) fork();
        }, delay);
        restarts.add(restart);
      });
    };

    const fail = (error: Error): void => {
      if (closing !== undefined) return;
      void stopAll().finally(() => reject(error));
    };

    const onSignal = (signal: NodeJS.Signals): void => {
      void stopAll().then(() => {
        // Stopped before every worker listened: serveCluster() settles, never as ready.
        if (!started) {
          reject(
            new SetupError(
              'STARTUP_FAILED',
              `Stopped by ${signal} before every worker was listening; the workers shut down`,
            ),
          );
        }
      });
    };

    // A signal while the cluster stops ends it at once, as a second signal ends serve()'s
    // process: the workers are killed (left alone, they would finish their graceful shutdown
    // without a primary), and the primary ends by that signal.
    const onSignalWhileStopping = (signal: NodeJS.Signals): void => {
      for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGKILL');
      process.off('SIGTERM', onSignalWhileStopping);
      process.off('SIGINT', onSignalWhileStopping);
      process.kill(process.pid, signal);
    };

    const stopAll = (): Promise<void> => {
      closing ??= (async () => {
        if (handleSignals) {
          process.off('SIGTERM', onSignal);
          process.off('SIGINT', onSignal);
          process.once('SIGTERM', onSignalWhileStopping);
          process.once('SIGINT', onSignalWhileStopping);
        }
        for (const restart of restarts) clearTimeout(restart);
        restarts.clear();
        // Whether each worker's shutdown went well: it exited with code 0 (a worker whose
        // shutdown failed exits with 1; one killed at the deadline exits by a signal).
        const exits: Promise<boolean>[] = [];
        for (const worker of workers) {
          exits.push(
            new Promise((done) => {
              if (worker.isDead()) {
                done(worker.process.exitCode === 0);
                return;
              }
              worker.once('exit', (code) => done(code === 0));
              if (worker.isConnected()) worker.send({ type: SHUTDOWN });
            }),
          );
        }
        // Workers get their own grace period plus time for shutdown handlers; one that still
        // has not exited is killed so that the primary's close() always ends.
        const timer = setTimeout(
          () => {
            for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGKILL');
          },
          Math.min(shutdownTimeout + 5_000, LONGEST_TIMER),
        );
        const clean = (await Promise.all(exits)).every(Boolean);
        clearTimeout(timer);
        process.off('SIGTERM', onSignalWhileStopping);
        process.off('SIGINT', onSignalWhileStopping);
        // As serve() after a failed shutdown: the primary still exits by itself, but tells its
        // supervisor.
        if (!clean) process.exitCode = 1;
      })();
      return closing;
    };

    const primaryHandle = (port: number): ClusterHandle => {
      const host = resolveHost(options.host);
      return {
        role: 'primary',
        port,
        host,
        url: formatUrl(options.tls === undefined ? 'http' : 'https', host, port),
        server: undefined,
        close: stopAll,
      };
    };

    if (handleSignals) {
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    }
    for (let i = 0; i < count; i++) fork();
  });
}
