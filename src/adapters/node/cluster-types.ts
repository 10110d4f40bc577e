/**
 * The shapes of `serveCluster()`: its options and the handle it resolves to, which the primary's
 * side and the workers' side both build.
 */
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { ServeOptions } from './serve.js';

/** Options of `serveCluster()`: those of `serve()`, plus the number of workers. */
export interface ClusterOptions extends ServeOptions {
  /** Worker processes to run (default: `os.availableParallelism()`). */
  workers?: number;
}

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
