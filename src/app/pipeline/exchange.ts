/**
 * One request on its way through the pipeline: what every step reads and what the steps before
 * it decided. Each step takes the exchange and nothing else, so a step's signature never grows
 * when another step learns something new.
 */
import type { Request } from '../../request.js';
import type { CompiledHook } from '../features/hooks.js';
import type { CompiledRenderer } from '../features/renderers.js';
import type { RouteFeatures } from '../features/route-features.js';
import type { RequestState } from '../inject/request-state.js';
import type { Logger } from '../logger.js';
import type { CompiledRoute, RoutingTable } from '../routing/routing-table.js';

/** What the pipeline needs from the application. */
export interface PipelineHost {
  readonly logger: Logger;
  readonly bodyLimit: number;
  readonly debug: boolean;
  /** `renderers: 'json'`: error bodies are JSON whatever the client accepts. */
  readonly jsonOnly: boolean;
  /** `etag: 'auto'`: weak ETags from the body of buffered GET answers. */
  readonly autoEtag: boolean;
  /** `requestTimeout`: ms before a pending answer becomes a 503 and the signal fires. */
  readonly requestTimeout: number | undefined;
}

export interface Exchange {
  readonly host: PipelineHost;
  readonly table: RoutingTable;
  readonly request: Request;
  /** A HEAD answered by a GET route: the body is dropped on the way out, the headers kept. */
  head: boolean;
  /** The route that answers, once routing found one. */
  route: CompiledRoute | undefined;
  /** The request's injection state, once a route matched. */
  state: RequestState | undefined;
  /**
   * CORS, CSP, default headers... of whatever answers: the application's until a route (or,
   * for 405 and OPTIONS, a path) takes over. Error responses carry them too.
   */
  features: RouteFeatures | undefined;
  /** The representation content negotiation chose (step 3). */
  renderer: CompiledRenderer | undefined;
  /**
   * The `onResponse` hooks the final response goes through: the application's until routing
   * finds a route, then the route's (which end with the application's).
   */
  onResponse: readonly CompiledHook[] | undefined;
  /** When the request arrived (`performance.now()`), taken only when a hook reads it. */
  started: number;
}
