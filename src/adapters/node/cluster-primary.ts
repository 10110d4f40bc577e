/**
 * The primary's side of `serveCluster()`: it forks the workers, resolves once every one listens,
 * replaces those that die (after a growing pause), and stops them all on close() or a signal.
 * It serves nothing itself.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { SetupError } from '../../errors.js';
import {
  CLUSTER_PORT,
  isListening,
  isStartupFailed,
  LISTEN_PORT,
  SHUTDOWN,
} from './cluster-messages.js';
import type { ClusterHandle, ClusterOptions } from './cluster-types.js';
import { checkDuration, formatUrl, LONGEST_TIMER, resolveHost } from './serve.js';

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

/** serveCluster() in the primary, its options already checked against the known ones. */
export function startPrimary(options: ClusterOptions): Promise<ClusterHandle> {
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
