/**
 * Node `IncomingMessage` → restmachine `Request`, without building any WHATWG object: the raw
 * header pairs are handed over as they are and indexed only when read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { bodyCutShort, HttpError, libraryAnswer } from '../../errors.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { isValidAuthority, originForm, targetAuthority } from '../../http/request-target.js';
import { type FramedBody, type PlatformContext, Request } from '../../request.js';
import { clientCertificate } from './certificate.js';
import { forwardedAddress, forwardedProtocol } from './forwarded.js';
import {
  authorityConflict,
  http2Authority,
  http2BodyCutShort,
  http2Fields,
} from './http2-request.js';
import { closedEarly, isGone } from './transport.js';
import type { TrustProxy } from './types.js';

/**
 * The body of a Node request as the pipeline reads it.
 *
 * It is not the `IncomingMessage` itself because leaving a message's own iterator early
 * destroys the message, and an unfinished message destroys its socket: the 413 for a body
 * that crosses the limit could then never be sent. This iterator leaves the message alone when
 * the reader stops; the adapter then answers and closes the connection instead of draining
 * the rest.
 *
 * @example
 * // A handler that needs Node's own stream (to pipe an upload to disk, say). The application's
 * // bodyLimit does not apply to what a handler reads itself, this way or by iterating the
 * // body: bound it yourself.
 * app.put('/uploads/{name}', async ({ request, name }) => {
 *   if (!(request.body instanceof NodeRequestBody)) throw new HttpError(400);
 *   await pipeline(request.body.message, createWriteStream(join(uploads, basename(name))));
 *   return null;
 * });
 */
export class NodeRequestBody implements AsyncIterable<Uint8Array>, FramedBody {
  readonly #message: IncomingMessage;
  /** The response to this request, when the adapter made the body: how a disconnect is seen. */
  readonly response: ServerResponse | undefined;
  readonly #awaitingContinue: ServerResponse | undefined;
  #continued = false;

  /**
   * `awaitingContinue` is the response of a request that sent `Expect: 100-continue` and has
   * not been told to go on: the first read sends `100 Continue` on it.
   */
  constructor(
    message: IncomingMessage,
    awaitingContinue?: ServerResponse,
    response: ServerResponse | undefined = awaitingContinue,
  ) {
    this.#message = message;
    this.response = response;
    this.#awaitingContinue = awaitingContinue;
  }

  /**
   * The request this body belongs to, for code that reads Node's own stream. Taking it is
   * reading the body: a client that sent `Expect: 100-continue` is told to go on.
   */
  get message(): IncomingMessage {
    this.#continue();
    return this.#message;
  }

  // RFC 9110 §10.1.1: a client that expects 100-continue waits before sending the body. It is
  // asked for the body only once something reads it, so a request refused on its headers (404,
  // 401, a declared length over the limit) never uploads anything. Node does not remember
  // having sent it: once.
  #continue(): void {
    const response = this.#awaitingContinue;
    if (response === undefined || this.#continued || response.headersSent) return;
    this.#continued = true;
    response.writeContinue();
  }

  /**
   * Whether the message carries content (RFC 9112 §6.3): it has a Transfer-Encoding or a
   * Content-Length other than 0 (Node's parser has refused a malformed one already).
   */
  get hasContent(): boolean {
    const headers = this.#message.headers;
    const length = headers['content-length'];
    return (
      headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0)
    );
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return readMessage(this.#message, () => this.#continue());
  }

  /**
   * Reads the whole body with plain stream events, which costs far less than async iteration
   * for the common small body. Over `limit` it stops reading (the message is paused, not
   * destroyed, so the 413 can still be sent) and rejects with 413.
   */
  readWhole(limit: number): Promise<Uint8Array> {
    const message = this.#message;
    this.#continue();
    return new Promise<Uint8Array>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      const cleanup = () => {
        message.off('data', onData);
        message.off('end', onEnd);
        message.off('error', onBroken);
        message.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        total += chunk.length;
        if (total > limit) {
          cleanup();
          message.pause();
          reject(new HttpError(413, `Request body is larger than the limit of ${limit} bytes`));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        if (message.httpVersionMajor >= 2 && http2BodyCutShort(message, total)) {
          onBroken();
          return;
        }
        cleanup();
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
      };
      // The client went away or broke the framing mid-body; nothing it sent can be trusted.
      const onBroken = () => {
        cleanup();
        reject(bodyCutShort());
      };
      const onClose = () => {
        if (!message.complete) onBroken();
      };
      message.on('data', onData);
      message.on('end', onEnd);
      message.on('error', onBroken);
      message.on('close', onClose);
    });
  }
}

/** The message's bytes; `start` runs at the first read (a generator runs nothing before). */
async function* readMessage(
  message: IncomingMessage,
  start: () => void,
): AsyncGenerator<Uint8Array> {
  start();
  const chunks: AsyncIterable<Uint8Array> = message.iterator({ destroyOnReturn: false });
  try {
    for await (const chunk of chunks) yield chunk;
  } catch {
    // The client went away or broke the framing mid-body; nothing it sent can be trusted.
    throw bodyCutShort();
  }
}

/** Raw header pairs with `authority` as their Host: the first Host line's value, or a new line. */
function withHost(raw: readonly string[], authority: string): string[] {
  const pairs: string[] = [];
  let replaced = false;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') {
      // A second Host line is refused anyway (requestRefusal).
      pairs.push(name, replaced ? (raw[i + 1] as string) : authority);
      replaced = true;
    } else pairs.push(name, raw[i + 1] as string);
  }
  if (!replaced) pairs.push('Host', authority);
  return pairs;
}

/**
 * Tells the `signal` injectable that the client went away: the response closed before it
 * finished (Node emits `close` on it when the connection drops, or on HTTP/2 when its stream is
 * reset; see transport.ts). One small object per request, holding its response; a listener is
 * added only for a request whose handler asked for the signal.
 */
class NodeContext implements PlatformContext {
  [key: string]: unknown;
  readonly #response: ServerResponse | undefined;

  constructor(response: ServerResponse | undefined) {
    this.#response = response;
  }

  onClientGone(request: Request, listener: () => void): void {
    // Read from the request's own context, so the method works taken off its object too.
    const context = request.context;
    const response = #response in context ? context.#response : undefined;
    if (response === undefined) return;
    if (isGone(response)) {
      if (closedEarly(response)) listener();
    } else {
      response.once('close', () => {
        if (closedEarly(response)) listener();
      });
    }
  }
}

/**
 * Whether the request has a body: one with neither Content-Length nor Transfer-Encoding has
 * none (RFC 9112 §6.3), and one declaring `Content-Length: 0` is empty, which is no body either,
 * as on the Fetch adapter. Node's server has built `headers` already (it reads Host from it), so
 * this is two property reads, and a GET makes no body object.
 */
function hasBody(message: IncomingMessage): boolean {
  // HTTP/2 frames a body itself, Content-Length optional (RFC 9113 §8.1.1): only HTTP/1 says
  // by its header fields that there is none.
  if (message.httpVersionMajor >= 2) return true;
  const { 'content-length': length, 'transfer-encoding': coding } = message.headers;
  return coding !== undefined || (length !== undefined && length !== '0');
}

/** Builds the restmachine request for a Node request. */
export function toRequest(
  message: IncomingMessage,
  trust: TrustProxy,
  awaitingContinue?: ServerResponse,
  response?: ServerResponse,
): Request {
  const target = message.url ?? '/';
  const path = originForm(target);
  const authority = targetAuthority(target);
  let fields = message.rawHeaders;
  if (message.httpVersionMajor >= 2) fields = http2Fields(message);
  else if (authority !== undefined) fields = withHost(fields, authority);
  const headers = MultiValueHeaders.fromRawPairs(fields);
  const socket = message.socket as TLSSocket;
  const encrypted = socket.encrypted === true;
  let protocol: 'http' | 'https' = encrypted ? 'https' : 'http';
  let remoteAddress = socket.remoteAddress;
  if (trust !== false) {
    remoteAddress = forwardedAddress(headers, remoteAddress, trust);
    protocol = forwardedProtocol(headers, protocol, trust);
  }
  return new Request({
    method: message.method ?? 'GET',
    path,
    headers,
    body: hasBody(message) ? new NodeRequestBody(message, awaitingContinue, response) : undefined,
    context: new NodeContext(response ?? awaitingContinue),
    // Behind a trusted proxy that terminated TLS the client's connection was still encrypted.
    tls: protocol === 'https',
    clientCert: encrypted ? clientCertificate(socket) : undefined,
    remoteAddress,
    protocol,
  });
}

// The last Host found valid: a server sees the same few on every request, and comparing costs
// less than matching (GET / 55,506 → 54,917 instructions per request).
let lastValidHost = '';

/**
 * What the request's framing and Host make it, when the application must not see it: a 400 for
 * more than one Host line or a Host that is no host (RFC 9112 §3.2, a MUST: a proxy and the
 * application could each take another host from it), a 501 for a transfer coding besides
 * `chunked` (RFC 9112 §6.1): Node removes only the chunked framing, so the application would
 * read the body still encoded. Node's parser has already refused a missing Host in HTTP/1.1
 * and a Transfer-Encoding that does not end in `chunked`. One pass over the raw lines.
 *
 * `http10` says the request came as HTTP/1.0, which has no Transfer-Encoding: RFC 9112 §6.1
 * makes such a message's framing faulty, a request smuggling attempt as likely as not (a
 * proxy that read it as HTTP/1.0 saw another body), so it gets the 400 of a body whose length
 * cannot be determined (RFC 9112 §6.3) rather than reaching the application; the adapter closes
 * the connection after it. `authority` is that of an absolute-form target (see
 * {@link targetAuthority}), the host the application sees: it must be a valid host too.
 */
export function requestRefusal(
  raw: readonly string[],
  http10 = false,
  authority?: string,
): HttpError | undefined {
  let host: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && (name === 'Host' || name.toLowerCase() === 'host')) {
      if (host !== undefined)
        return new HttpError(400, 'More than one Host header (RFC 9112 §3.2)');
      host = raw[i + 1] as string;
    } else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      if (http10)
        return new HttpError(400, 'Transfer-Encoding in an HTTP/1.0 request (RFC 9112 §6.1)');
      const coding = (raw[i + 1] as string).trim().toLowerCase();
      if (coding !== 'chunked') {
        // The library's own answer about the request, not a failure of the server to log.
        return libraryAnswer(
          new HttpError(
            501,
            `Transfer-Encoding ${JSON.stringify(coding)} is not implemented; send the body chunked or with a Content-Length`,
          ),
        );
      }
    }
  }
  if (authority !== undefined && !isValidAuthority(authority)) {
    return new HttpError(400, 'Invalid authority in the request target (RFC 9112 §3.2.2)');
  }
  if (host === undefined || host === lastValidHost) return undefined;
  if (!isValidAuthority(host)) return new HttpError(400, 'Invalid Host header (RFC 9112 §3.2)');
  lastValidHost = host;
  return undefined;
}

/**
 * {@link requestRefusal} for an HTTP/2 request, whose `:authority` is the host the application
 * sees (RFC 9113 §8.3.1; see http2-request.ts): a Host that names another one makes the request
 * malformed, and the authority must be a valid host as an absolute-form target's must.
 */
export function http2Refusal(message: IncomingMessage): HttpError | undefined {
  if (authorityConflict(message)) {
    return new HttpError(400, 'Host differs from :authority (RFC 9113 §8.3.1)');
  }
  return requestRefusal(message.rawHeaders, false, http2Authority(message));
}
