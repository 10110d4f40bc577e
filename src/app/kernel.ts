/**
 * The application as adapters see it, and all they import from `src/app/` besides types: run a
 * request (synchronously when the pipeline could), or answer one the adapter could not read
 * through the same error path; tell a promise from a value; know what of a request's code still
 * runs after its answer, and wait for it no longer than a grace period; and speak to a logger given as an adapter option in its own argument
 * order. The package does not export
 * this module, and its declarations are stripped from the published types.
 */
import { dispatchRequest } from './application.js';
import { adaptLogger as adapt } from './logger-adapters.js';
import { unfinished as stillRunning } from './pipeline/deadline.js';
import { isPending as pending, settledWithin as within } from './thenable.js';

/** @internal */
export const dispatch = dispatchRequest;

/** @internal */
export const isPending = pending;

/** @internal */
export const adaptLogger = adapt;

/** @internal */
export const unfinished = stillRunning;

/** @internal */
export const settledWithin = within;
