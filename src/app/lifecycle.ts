/**
 * Startup and shutdown handlers: registered in order, run once, synchronously when every handler
 * is synchronous (`startupSync()`, for exit hooks and scripts) or awaiting each in turn. Startup
 * results become session dependencies named after their handler.
 */
import { SetupError } from '../errors.js';
import type { Injectable } from './inject/handler-parameters.js';
import type { Logger } from './logger.js';
import { isThenable } from './thenable.js';

/** One registered handler; `name` names its result (startup) or the handler in messages. */
export interface LifecycleEntry {
  name: string | undefined;
  injectable: Injectable;
}

type Phase = 'Startup' | 'Shutdown';

/** `run()` as a promise, whether it returned, returned a promise or threw. */
function settle(run: () => void | Promise<void>): Promise<void> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The handlers of one application and what their runs left behind. */
export class Lifecycle {
  /** Startup results, by the name they were registered under. */
  readonly startupValues = new Map<string, unknown>();
  readonly #startupHandlers: LifecycleEntry[] = [];
  readonly #shutdownHandlers: LifecycleEntry[] = [];
  readonly #logger: Logger;
  #startup: Promise<void> | undefined;
  #started = false;
  #startupError: unknown;
  #shutdown: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  get started(): boolean {
    return this.#started;
  }

  /** The error that made startup fail, if it did. */
  get startupError(): unknown {
    return this.#startupError;
  }

  onStartup(entry: LifecycleEntry): void {
    this.#startupHandlers.push(entry);
  }

  onShutdown(entry: LifecycleEntry): void {
    this.#shutdownHandlers.push(entry);
  }

  /** Runs the startup handlers once, then `ready` (which checks the routes); shared promise. */
  startup(ready: () => void): Promise<void> {
    // The first handler starts now, in the caller's turn: on Lambda that is the cold start.
    this.#startup ??= settle(() => this.#run('Startup', this.#startupHandlers, 'async'))
      .then(() => this.#finishStartup(ready))
      .catch((error: unknown) => {
        this.#startupError = error;
        throw error;
      });
    return this.#startup;
  }

  /** As `startup`, synchronously; throws when a handler returns a promise. */
  startupSync(ready: () => void): void {
    if (this.#startup !== undefined) {
      if (this.#started) return;
      throw new SetupError('SYNC_STARTUP_PROMISE', 'startup() is already running asynchronously');
    }
    try {
      this.#run('Startup', this.#startupHandlers, 'sync');
      this.#finishStartup(ready);
      this.#startup = Promise.resolve();
    } catch (error) {
      this.#startupError = error;
      this.#startup = Promise.reject(error);
      this.#startup.catch(() => undefined);
      throw error;
    }
  }

  /** Runs the shutdown handlers once, last registered first; shared promise. */
  shutdown(): Promise<void> {
    this.#shutdown ??= settle(() =>
      this.#runShutdown([...this.#shutdownHandlers].reverse(), 'async', 0, []),
    );
    return this.#shutdown;
  }

  /** As `shutdown`, synchronously; throws when a handler returns a promise. */
  shutdownSync(): void {
    if (this.#shutdown !== undefined) return;
    this.#shutdown = Promise.resolve();
    this.#runShutdown([...this.#shutdownHandlers].reverse(), 'sync', 0, []);
  }

  #finishStartup(ready: () => void): void {
    ready();
    this.#started = true;
  }

  /**
   * Calls `entries` in order, each with its injection object. A handler's promise is awaited in
   * `async` mode and refused in `sync` mode; the rest run once it settles.
   */
  #run(
    phase: Phase,
    entries: readonly LifecycleEntry[],
    mode: 'sync' | 'async',
    from = 0,
  ): void | Promise<void> {
    for (let i = from; i < entries.length; i++) {
      const entry = entries[i] as LifecycleEntry;
      const value = (entry.injectable.fn as (c: object) => unknown)(this.#context(phase, entry));
      if (isThenable(value)) {
        if (mode === 'sync') {
          Promise.resolve(value).catch(() => undefined);
          const call = phase === 'Startup' ? 'startup' : 'shutdown';
          throw new SetupError(
            'SYNC_STARTUP_PROMISE',
            `${phase} handler ${entry.name ?? '(anonymous)'} returned a promise; use await app.${call}()`,
          );
        }
        return Promise.resolve(value).then((settled) => {
          this.#keep(phase, entry, settled);
          return this.#run(phase, entries, mode, i + 1);
        });
      }
      this.#keep(phase, entry, value);
    }
  }

  /**
   * Calls every shutdown handler from the `from`-th, whatever the others did: one that fails
   * does not keep the rest from releasing what they hold. A handler that needs a startup result
   * never made (startup failed before it) has nothing to release and is skipped. Throws the
   * failure once all have run, or an AggregateError of several.
   */
  #runShutdown(
    entries: readonly LifecycleEntry[],
    mode: 'sync' | 'async',
    from: number,
    failures: unknown[],
  ): void | Promise<void> {
    for (let i = from; i < entries.length; i++) {
      const entry = entries[i] as LifecycleEntry;
      let value: unknown;
      try {
        const context = this.#shutdownContext(entry);
        if (context === undefined) continue;
        value = (entry.injectable.fn as (c: object) => unknown)(context);
      } catch (error) {
        failures.push(error);
        continue;
      }
      if (isThenable(value)) {
        if (mode === 'sync') {
          Promise.resolve(value).catch(() => undefined);
          failures.push(
            new SetupError(
              'SYNC_STARTUP_PROMISE',
              `Shutdown handler ${entry.name ?? '(anonymous)'} returned a promise; use await app.shutdown()`,
            ),
          );
          continue;
        }
        return Promise.resolve(value).then(
          () => this.#runShutdown(entries, mode, i + 1, failures),
          (error: unknown) => {
            failures.push(error);
            return this.#runShutdown(entries, mode, i + 1, failures);
          },
        );
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) {
      throw new AggregateError(failures, `${failures.length} shutdown handlers failed`);
    }
  }

  /** A shutdown handler's injection object; `undefined` when a startup result it needs is missing. */
  #shutdownContext(entry: LifecycleEntry): Record<string, unknown> | undefined {
    if (!this.#started) {
      const missing = entry.injectable.names.find(
        (name) => name !== 'log' && !this.startupValues.has(name),
      );
      if (missing !== undefined) {
        this.#logger.warn('Shutdown handler skipped: a startup result it needs was never made', {
          handler: entry.name ?? '(anonymous)',
          missing,
        });
        return undefined;
      }
    }
    return this.#context('Shutdown', entry);
  }

  #keep(phase: Phase, entry: LifecycleEntry, value: unknown): void {
    if (phase === 'Startup' && entry.name !== undefined) this.startupValues.set(entry.name, value);
  }

  /** A lifecycle handler may inject earlier startup results and `log`. */
  #context(phase: Phase, entry: LifecycleEntry): Record<string, unknown> {
    const context: Record<string, unknown> = {};
    for (const name of entry.injectable.names) {
      if (name === 'log') context.log = this.#logger;
      else if (this.startupValues.has(name)) context[name] = this.startupValues.get(name);
      else {
        throw new SetupError(
          'UNKNOWN_DEPENDENCY',
          `${phase} handler ${entry.name ?? '(anonymous)'}: "${name}" is not a startup result or "log"`,
        );
      }
    }
    return context;
  }
}
