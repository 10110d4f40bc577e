/**
 * The shapes the Node adapter and `serve()` share.
 */
import type { Logger } from '../../app/logger.js';
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';

/**
 * What an adapter needs from an application. Every `RestApplication`, whatever it registered,
 * has these members, so an adapter accepts any of them without caring about its types.
 */
export interface ServedApplication {
  execute(request: Request): Promise<Response>;
  startup(): Promise<void>;
  shutdown(): Promise<void>;
  readonly logger: Logger;
  /** Whether shutdown has begun: such an application is not served again. */
  readonly stopping?: boolean;
}

/**
 * Whom to believe about the original client when a proxy sits in front of the server.
 *
 * - `false` (the default): nobody; the socket's peer is the client, the socket's TLS is the
 *   protocol, and `X-Forwarded-*` headers are ignored (any client can send them).
 * - a number `n`: there are exactly `n` proxies in front; the client address is the `n`-th
 *   entry of `X-Forwarded-For` counted from the right (entries further left were written by
 *   the client itself and prove nothing), and `X-Forwarded-Proto` is believed.
 * - `true`: every hop is trusted; the left-most `X-Forwarded-For` entry is the client. Only
 *   safe when the proxy in front replaces, rather than appends to, the header.
 */
export type TrustProxy = boolean | number;

/** Options of `new NodeAdapter(app, options)`. */
export interface NodeAdapterOptions {
  /** Whether to honour `X-Forwarded-For` and `X-Forwarded-Proto` (default `false`). */
  trustProxy?: TrustProxy | undefined;
}
