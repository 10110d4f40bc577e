/**
 * The application as adapters see it, and all they import from `src/app/`: run a request
 * (synchronously when the pipeline could), answer a request the adapter could not read through
 * the same error path, and tell a promise from a value. The package does not export this
 * module; its declarations are stripped from the published types.
 */
export { dispatchRequest as dispatch } from './application.js';
export type { Logger } from './logger.js';
export { isThenable } from './thenable.js';
