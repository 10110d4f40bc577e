/**
 * restmachine/fetch: run an application on any runtime with the WHATWG Fetch API.
 *
 * @example
 * import { FetchAdapter } from 'restmachine/fetch';
 * export default { fetch: new FetchAdapter(app).fetch };
 */
export type { FetchApplication, FetchHandler } from './adapter.js';
export { FetchAdapter } from './adapter.js';
