/**
 * NodeAdapter: an application as a `(req, res)` listener for `node:http` and `node:https`.
 */
import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { dispatch, isPending, unfinished } from '../../app/kernel.js';
import { knownOptions } from '../../app/options.js';
import { SetupError } from '../../errors.js';
import { targetAuthority } from '../../http/request-target.js';
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';
import { admitRequest, isLastRequest } from './connection.js';
import { http2Refusal, requestRefusal, toRequest } from './request.js';
import {
  closeWithConnection,
  type WriteContext,
  writeFallback,
  writeResponse,
} from './response.js';
import { isGone } from './transport.js';
import type { NodeAdapterOptions, ServedApplication, TrustProxy } from './types.js';

/** The names of {@link NodeAdapterOptions} (./types.ts), which `serve()` also takes. */
export const NODE_ADAPTER_OPTIONS: readonly string[] = Object.keys({
  trustProxy: true,
} satisfies Record<keyof NodeAdapterOptions, true>);

function checkTrustProxy(value: unknown): TrustProxy {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  throw new SetupError(
    'INVALID_OPTION',
    `trustProxy must be a boolean or a number of proxies (an integer >= 0), got ${String(value)}`,
  );
}

/**
 * Serves an application on a Node HTTP or HTTPS server.
 *
 * Requests become restmachine requests without WHATWG objects: headers are indexed only when
 * read, the body is streamed to the pipeline (which enforces the application's `bodyLimit`),
 * and `tls`/`clientCert` come from the socket. Responses are written in one `writeHead`; files
 * and streams are piped with backpressure.
 *
 * The listener runs startup handlers lazily before the first request; `serve()` runs them
 * before listening, which is usually what you want.
 *
 * @example
 * import { createServer } from 'node:http';
 * import { NodeAdapter } from 'restmachine/node';
 *
 * const adapter = new NodeAdapter(app, { trustProxy: 1 });
 * createServer(adapter.listener).listen(3000);
 */
export class NodeAdapter {
  readonly app: ServedApplication;
  readonly trustProxy: TrustProxy;
  /** The `(req, res)` listener to give `http.createServer` or `https.createServer`. */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * A listener for the server's `checkContinue` event. Without it Node answers every
   * `Expect: 100-continue` with `100 Continue` at once; with it, the client is asked for the
   * body only when the application reads it, so a request refused on its headers alone (404,
   * 401, 413 from `Content-Length`) never uploads. `serve()` installs it.
   *
   * @example
   * server.on('checkContinue', adapter.checkContinueListener);
   */
  readonly checkContinueListener: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * A listener for the server's `connect` event. Node hands a `CONNECT` request (a tunnel,
   * which an application server does not open) to it instead of the request listener, and
   * drops the connection unanswered when nobody listens; with it the client gets the `501`
   * every method restmachine does not route gets, then the connection closes. `serve()`
   * installs it.
   *
   * @example
   * server.on('connect', adapter.connectListener);
   */
  readonly connectListener: (req: IncomingMessage, socket: Duplex) => void;
  #draining = false;
  // The logger, the count of dispatches awaiting the pipeline or still piping a body, and the
  // HTTP/2 fields already warned about: one object for the adapter's life, so only an
  // asynchronous request or a streamed body pays, with one increment and one decrement.
  readonly #context: WriteContext;

  constructor(app: ServedApplication, options: NodeAdapterOptions = {}) {
    if (app === null || typeof app !== 'object' || typeof app.execute !== 'function') {
      throw new SetupError('INVALID_OPTION', 'NodeAdapter needs a RestApplication');
    }
    knownOptions('new NodeAdapter()', options, NODE_ADAPTER_OPTIONS);
    this.app = app;
    this.trustProxy = checkTrustProxy(options.trustProxy);
    this.#context = { logger: app.logger, inFlight: 0, warnedFields: new Set() };
    // One closure for the adapter's life, none per request.
    this.listener = (req, res) => {
      this.#serve(req, res, false);
    };
    this.checkContinueListener = (req, res) => {
      this.#serve(req, res, true);
    };
    this.connectListener = (req, socket) => {
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket as Socket);
      res.once('finish', () => socket.end());
      this.#serve(req, res, false);
    };
  }

  /**
   * From now on every response to the last request received on its connection asks its client
   * to close the connection, so keep-alive connections end after their current requests
   * (pipelined requests already received are all answered first). `serve()` calls this when it
   * shuts down; call it yourself before closing a server you created.
   */
  drain(): void {
    this.#draining = true;
  }

  /** Whether `drain()` was called. */
  get draining(): boolean {
    return this.#draining;
  }

  /**
   * How many requests are still being worked on: handlers not yet settled and response bodies
   * (streams, files) still being sent or torn down. A request cut by closing its connection
   * counts until its cleanup is done (its `signal` aborted and the handler settled, a stream's
   * `finally` run). Wait for `0` before running shutdown handlers, as `serve()` does.
   */
  get inFlight(): number {
    return this.#context.inFlight;
  }

  /**
   * Handles one request; resolves once the response is handed to Node. Never rejects.
   * `expectsContinue` says the client waits for `100 Continue` before sending its body.
   */
  async handle(req: IncomingMessage, res: ServerResponse, expectsContinue = false): Promise<void> {
    await this.#serve(req, res, expectsContinue);
  }

  // A response the pipeline finished synchronously is written in the same tick; only an
  // asynchronous one costs a promise.
  #serve(
    req: IncomingMessage,
    res: ServerResponse,
    expectsContinue: boolean,
  ): undefined | Promise<void> {
    let response: Response | Promise<Response>;
    // An HTTP/1.0 message with Transfer-Encoding has faulty framing: answered 400 (see
    // requestRefusal), then the connection closes (RFC 9112 §6.1, a MUST). Node would keep it
    // for a client that asked to, and read what follows the body as the next request.
    const http10 = req.httpVersionMinor === 0;
    if (http10 && req.headers['transfer-encoding'] !== undefined) res.shouldKeepAlive = false;
    const place = admitRequest(req.socket, res);
    if (place === 0) return undefined;
    if (res.socket === null) closeWithConnection(req, res);
    try {
      const request = toRequest(req, this.trustProxy, expectsContinue ? res : undefined, res);
      const refusal =
        req.httpVersionMajor >= 2
          ? http2Refusal(req)
          : requestRefusal(req.rawHeaders, http10, targetAuthority(req.url));
      response = dispatch(this.app, request, refusal);
    } catch (error) {
      this.#fail(res, error);
      return undefined;
    }
    if (!isPending(response)) {
      this.#write(req, res, response, place);
      return undefined;
    }
    this.#context.inFlight++;
    return Promise.resolve(response).then(
      (settled) => {
        this.#write(req, res, settled, place);
        // A handler answered by its timeout's 503 still counts until it settles.
        const running = unfinished(settled);
        if (running === undefined) this.#context.inFlight--;
        else running.then(() => this.#context.inFlight--);
      },
      (error: unknown) => {
        this.#fail(res, error);
        this.#context.inFlight--;
      },
    );
  }

  // `place`: the request's among those received on its connection (connection.ts).
  #write(req: IncomingMessage, res: ServerResponse, response: Response, place: number): void {
    try {
      // Draining closes a connection after the answer to the last request received on it, not
      // before the answers to requests pipelined behind this one.
      const close = this.#draining && isLastRequest(req.socket, place);
      writeResponse(req, res, response, close, this.#context);
    } catch (error) {
      this.#fail(res, error, response.request);
    }
  }

  // execute() never throws for anything a request causes; reaching this is a bug in the
  // application's wiring, and the client still gets an answer.
  #fail(res: ServerResponse, error: unknown, request?: Request): void {
    const requestId = request?.requestId;
    this.app.logger.error('Request could not be handled', { requestId, error });
    if (!isGone(res)) writeFallback(res, 500, requestId);
  }
}
