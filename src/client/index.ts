/**
 * `restmachine/client`: typed calls to an application's routes, over `fetch` or in-process
 * (docs/openapi.md, "Typed clients"). Not imported by the core. Every type a client's type
 * reaches is exported, so that a declaration file can name it (test/package/install.test.ts).
 */
export {
  type ClientApi,
  type ClientOptions,
  createClient,
  type FetchClientOptions,
  type InProcessClientOptions,
} from './client.js';
export type {
  BodiesPart,
  BytesResult,
  Client,
  ClientCall,
  ClientMethod,
  ClientPath,
  ClientResponse,
  DeclaredResponse,
  Delivered,
  EntryOf,
  ErrorStatus,
  Flattened,
  FormPart,
  HandlerResponse,
  HeadersPart,
  IsAny,
  Jsonified,
  JsonPart,
  NoTypedRoutes,
  OptionsArgument,
  OptionsPart,
  ParamsPart,
  PartialResponse,
  PathsFor,
  QueryValue,
  RequestOptions,
  ResponseOf,
  ResponseResult,
  RoutesOf,
  ShapeInputs,
  StreamLike,
  SuccessResponse,
  SuccessStatus,
  TupleResponse,
  TypedPart,
} from './types.js';
