/**
 * `restmachine/client`: typed calls to an application's routes, over `fetch` or in-process
 * (docs/openapi.md, "Typed clients"). Not imported by the core.
 */
export {
  type ClientOptions,
  createClient,
  type FetchClientOptions,
  type InProcessClientOptions,
} from './client.js';
export type {
  Client,
  ClientCall,
  ClientMethod,
  ClientResponse,
  ErrorStatus,
  HandlerResponse,
  Jsonified,
  QueryValue,
  RequestOptions,
  ResponseOf,
  RoutesOf,
} from './types.js';
