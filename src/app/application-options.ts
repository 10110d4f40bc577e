/**
 * The names of `new RestApplication()`'s options, which it checks before reading any: a
 * misspelt one is an `INVALID_OPTION` naming these (src/app/options.ts). Apart from
 * `options.ts`, which the logger uses too, so that the application's types do not close a
 * circle through it.
 */
import type { ApplicationOptions } from './types.js';

// Every option of `new RestApplication()`, kept complete by the type: a new option is a compile
// error here until it is listed.
const APPLICATION_OPTION_NAMES: Record<keyof ApplicationOptions, true> = {
  bodyLimit: true,
  debug: true,
  logger: true,
  renderers: true,
  etag: true,
  wwwAuthenticate: true,
  authorization: true,
  accessLog: true,
  requestTimeout: true,
  validateResponses: true,
  multipart: true,
};
export const APPLICATION_OPTIONS: readonly string[] = Object.keys(APPLICATION_OPTION_NAMES);
