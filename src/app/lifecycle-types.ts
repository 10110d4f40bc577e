/**
 * The types of startup and shutdown handlers: what they may inject (`log` and the startup
 * results registered before them, docs/application.md, "Lifecycle").
 */
import type { Logger } from './logger.js';
import type { StartupResultNames } from './routing/route-types.js';
import type { Registry } from './types.js';

/**
 * The registered names a startup or shutdown handler may inject: the startup results registered
 * before it, as the run time checks; no other registered name (a dependency's, a validator's)
 * exists at startup. A registry declared with an index signature (`Record<string, unknown>`)
 * types no names, so it keeps them all.
 */
export type StartupResults<Deps extends Registry> = Pick<
  Deps,
  (StartupResultNames<Deps> | IndexSignatureKey<Deps>) & keyof Deps
>;

/** `string` for a registry with a string index signature, else `never`. */
export type IndexSignatureKey<Deps> = Deps extends unknown
  ? string extends keyof Deps
    ? string
    : never
  : never;

/** A startup or shutdown handler: may inject startup results and `log`. */
export type LifecycleHandler<Deps extends Registry, T = unknown> = (
  context: StartupResults<Deps> & { log: Logger },
) => T;
