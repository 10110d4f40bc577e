/**
 * Startup and shutdown handlers: registered in order, run once, synchronously when every handler
 * is synchronous (`startupSync()`, for exit hooks and scripts) or awaiting each in turn. Startup
 * results become session dependencies named after their handler.
 */
import { HttpError, libraryAnswer, SetupError } from '../errors.js';
import type { Binding } from './inject/bindings.js';
import { BUILTIN_NAMES } from './inject/builtins.js';
import type { Injectable } from './inject/handler-parameters.js';
import type { Logger } from './logger.js';
import { isThenable, settledWithin } from './thenable.js';

/** One registered handler; `name` names its result (startup) or the handler in messages. */
export interface LifecycleEntry {
  name: string | undefined;
  injectable: Injectable;
}

type Phase = 'Startup' | 'Shutdown';

/** The application's registered names: read only to explain a name a handler cannot inject. */
type Registrations = ReadonlyMap<string, Binding>;

/** The registration method that made `binding`, as a user wrote it. */
function registeredWith(binding: Exclude<Binding, { kind: 'startup' }>): string {
  if (binding.kind === 'provider') return `${binding.guard?.kind ?? 'dependency'}()`;
  if (binding.kind === 'exists') return 'resourceExists()';
  return 'validates()';
}

/** `run()` as a promise, whether it returned, returned a promise or threw. */
function settle(run: () => void | Promise<void>): Promise<void> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** How long shutdown waits for a startup still running, in milliseconds. */
const STARTUP_GRACE = 5_000;

/** The refusal of a startup asked for once shutdown began. */
function afterShutdown(): SetupError {
  return new SetupError(
    'STARTUP_FAILED',
    'The application is shutting down (or shut down): startup() cannot run after shutdown()',
  );
}

/** The handlers of one application and what their runs left behind. */
export class Lifecycle {
  /** Startup results, by the name they were registered under. */
  readonly startupValues = new Map<string, unknown>();
  readonly #startupHandlers: LifecycleEntry[] = [];
  readonly #shutdownHandlers: LifecycleEntry[] = [];
  readonly #logger: Logger;
  #registrations: Registrations = new Map();
  /** The results startup makes: the names of its handlers when it began. */
  #startupNames: ReadonlySet<string> | undefined;
  #startup: Promise<void> | undefined;
  #started = false;
  // The startup handlers startup runs (checked when it began), how many of them finished (their
  // results kept), and whether the last attempt failed: the next one resumes after them.
  #startupEntries: readonly LifecycleEntry[] | undefined;
  #finished = 0;
  #failed = false;
  // The first startup handler that returned a promise, named in startupSync()'s error.
  #asyncHandler: string | undefined;
  #startupError: unknown;
  #shutdown: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  get started(): boolean {
    return this.#started;
  }

  /** Whether shutdown began (`shutdown()` or `shutdownSync()` was called). */
  get stopping(): boolean {
    return this.#shutdown !== undefined;
  }

  /** The error that made startup fail, if it did. */
  get startupError(): unknown {
    return this.#startupError;
  }

  /** `registrations` is the application's registry, read for hints in errors. */
  onStartup(entry: LifecycleEntry, registrations: Registrations): void {
    // Startup runs its handlers once: one registered later would never run.
    if (this.#startupNames !== undefined) {
      throw new SetupError(
        'INVALID_HANDLER',
        `Startup handler ${entry.name ?? '(anonymous)'} registered after startup began; it would never run: register it before the first request or startup()`,
      );
    }
    this.#registrations = registrations;
    this.#startupHandlers.push(entry);
  }

  /**
   * A handler registered once startup began missed its check (`#checkNames`), so it is checked
   * here: refused now, not found unable to run at shutdown, when nothing else can be done.
   */
  onShutdown(entry: LifecycleEntry, registrations: Registrations): void {
    this.#registrations = registrations;
    if (this.#startupNames !== undefined)
      this.#refuseUnknownName('Shutdown', entry, this.#startupNames);
    this.#shutdownHandlers.push(entry);
  }

  /**
   * Runs the startup handlers once, then `ready` (which checks the routes); shared promise. A
   * startup that failed is tried again by the next call, from the handler that failed: the ones
   * that finished are not run twice, and an application started while its database was
   * unreachable starts once it is back.
   */
  startup(ready: () => void): Promise<void> {
    if (this.#startup !== undefined && !this.#failed) return this.#startup;
    // What startup would open now, no shutdown handler would ever release.
    if (this.#shutdown !== undefined) return Promise.reject(afterShutdown());
    this.#failed = false;
    // The first handler starts now, in the caller's turn: on Lambda that is the cold start.
    this.#startup = settle(() => {
      this.#startupEntries ??= this.#checkNames();
      return this.#run('Startup', this.#startupEntries, this.#finished);
    })
      .then(() => this.#finishStartup(ready))
      .catch((error: unknown) => {
        this.#startupError = error;
        this.#failed = true;
        throw error;
      });
    return this.#startup;
  }

  /**
   * As `startup`, synchronously. A handler that returns a promise cannot be waited for here:
   * startup goes on asynchronously from it (its result kept, the later handlers run after it),
   * `startup()` resolves when it is done, and this throws to say so.
   */
  startupSync(ready: () => void): void {
    if (this.#startup !== undefined && !this.#failed) {
      if (this.#started) return;
      throw new SetupError('SYNC_STARTUP_PROMISE', 'startup() is already running asynchronously');
    }
    this.#failed = false;
    let pending: void | Promise<void>;
    try {
      this.#startupEntries ??= this.#checkNames();
      pending = this.#run('Startup', this.#startupEntries, this.#finished);
      if (pending === undefined) {
        this.#finishStartup(ready);
        this.#startup = Promise.resolve();
        return;
      }
    } catch (error) {
      this.#startupError = error;
      this.#failed = true;
      this.#startup = Promise.reject(error);
      this.#startup.catch(() => undefined);
      throw error;
    }
    this.#startup = pending
      .then(() => this.#finishStartup(ready))
      .catch((error: unknown) => {
        this.#startupError = error;
        this.#failed = true;
        throw error;
      });
    // Whoever awaits startup() sees a failure; nobody else is told of it twice.
    this.#startup.catch(() => undefined);
    throw new SetupError(
      'SYNC_STARTUP_PROMISE',
      `Startup handler ${this.#asyncHandler ?? '(anonymous)'} returned a promise, so startupSync() cannot finish startup; it goes on asynchronously: await app.startup()`,
    );
  }

  /**
   * Runs the shutdown handlers once, last registered first; shared promise. A startup still
   * running is waited for first, for at most STARTUP_GRACE: what it opens is released by the
   * handlers that need it, not skipped as never made; one that never finishes (a connect that
   * never answers, a startup handler awaiting this very shutdown) does not hold shutdown.
   */
  shutdown(): Promise<void> {
    if (this.#shutdown !== undefined) return this.#shutdown;
    const run = () => this.#runShutdown([...this.#shutdownHandlers].reverse(), 'async', 0, []);
    const starting = this.#startup !== undefined && !this.#started && !this.#failed;
    this.#shutdown = starting
      ? settledWithin(this.#startup as Promise<void>, STARTUP_GRACE).then(() => settle(run))
      : settle(run);
    return this.#shutdown;
  }

  /** As `shutdown`, synchronously; throws when a handler returns a promise. */
  shutdownSync(): void {
    if (this.#shutdown !== undefined) return;
    this.#shutdown = Promise.resolve();
    this.#runShutdown([...this.#shutdownHandlers].reverse(), 'sync', 0, []);
  }

  /**
   * Refuses, before any startup handler runs, a handler that injects a name startup does not
   * make: a startup handler may inject `log` and the results of the ones registered before it, a
   * shutdown handler `log` and any startup result (docs/application.md#lifecycle). Every name is
   * known at registration, so nothing need be acquired by a startup that is then refused, and no
   * shutdown handler is found unable to release what it holds only when shutdown calls it.
   * Returns the startup handlers it checked: the ones startup runs, so one registered while an
   * asynchronous startup is running is not run unchecked.
   */
  #checkNames(): readonly LifecycleEntry[] {
    const startupHandlers = [...this.#startupHandlers];
    const startupNames = new Set<string>();
    for (const entry of startupHandlers) {
      if (entry.name !== undefined) startupNames.add(entry.name);
    }
    this.#startupNames = startupNames;
    const earlier = new Set<string>();
    for (const entry of startupHandlers) {
      this.#refuseUnknownName('Startup', entry, earlier);
      if (entry.name !== undefined) earlier.add(entry.name);
    }
    for (const entry of this.#shutdownHandlers) {
      this.#refuseUnknownName('Shutdown', entry, startupNames);
    }
    return startupHandlers;
  }

  /** Throws `UNKNOWN_DEPENDENCY` when `entry` injects a name other than `log` and `known`. */
  #refuseUnknownName(phase: Phase, entry: LifecycleEntry, known: ReadonlySet<string>): void {
    const unknown = entry.injectable.names.find((name) => name !== 'log' && !known.has(name));
    if (unknown === undefined) return;
    throw new SetupError(
      'UNKNOWN_DEPENDENCY',
      `${phase} handler ${entry.name ?? '(anonymous)'}: "${unknown}" is not a startup result or "log"${this.#hint(unknown)}`,
    );
  }

  /** Why a name a lifecycle handler injects is not there for it, when it is a name elsewhere. */
  #hint(name: string): string {
    if (this.#startupNames?.has(name)) {
      return `; "${name}" is made by this startup handler or a later one: register its maker first`;
    }
    const binding = this.#registrations.get(name);
    if (binding !== undefined && binding.kind !== 'startup') {
      return (
        `; "${name}" is registered with ${registeredWith(binding)}, whose values are made per ` +
        `request or session, not at startup: register it with onStartup('${name}', ...) to inject it here`
      );
    }
    if (BUILTIN_NAMES.has(name)) return `; "${name}" is a value of each request`;
    return '';
  }

  #finishStartup(ready: () => void): void {
    ready();
    this.#started = true;
    this.#startupError = undefined;
  }

  /**
   * Calls `entries` in order, each with its injection object. A handler's promise is awaited
   * and the rest run once it settles: a promise of the end, or undefined when none was async.
   */
  #run(phase: Phase, entries: readonly LifecycleEntry[], from = 0): void | Promise<void> {
    for (let i = from; i < entries.length; i++) {
      const entry = entries[i] as LifecycleEntry;
      const value = (entry.injectable.fn as (c: object) => unknown)(this.#context(entry));
      if (isThenable(value)) {
        this.#asyncHandler ??= entry.name ?? '(anonymous)';
        return Promise.resolve(value).then((settled) => {
          this.#keep(phase, entry, settled);
          this.#finished = i + 1;
          return this.#run(phase, entries, i + 1);
        });
      }
      this.#keep(phase, entry, value);
      this.#finished = i + 1;
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
        // Expected after a failed startup, whose own error says what went wrong: a warning here
        // read as a second failure before it.
        this.#logger.debug('Shutdown handler skipped: a startup result it needs was never made', {
          handler: entry.name ?? '(anonymous)',
          missing,
        });
        return undefined;
      }
    }
    return this.#context(entry);
  }

  #keep(phase: Phase, entry: LifecycleEntry, value: unknown): void {
    if (phase === 'Startup' && entry.name !== undefined) this.startupValues.set(entry.name, value);
  }

  /**
   * A lifecycle handler's injection object: `log` and startup results, the only names
   * `#checkNames` lets through.
   */
  #context(entry: LifecycleEntry): Record<string, unknown> {
    const context: Record<string, unknown> = {};
    for (const name of entry.injectable.names) {
      context[name] = name === 'log' ? this.#logger : this.startupValues.get(name);
    }
    return context;
  }
}

/** What a request that arrives once shutdown began is answered (the library's own 503). */
export function shuttingDown(): HttpError {
  return libraryAnswer(new HttpError(503, 'Service Unavailable: the application is shutting down'));
}
