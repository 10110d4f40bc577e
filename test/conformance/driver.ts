/**
 * The driver interface of the conformance suite: one way of getting a request to an
 * application and a response back. The same suite runs through every driver (in-process, Node
 * server, Fetch adapter, Lambda event kinds), so a bug in one adapter cannot hide.
 */
import { MultiValueHeaders, type RestApplication } from '../../src/index.js';

export interface DriverRequest {
  method: string;
  /** Path with an optional query string, percent-encoding as the client sends it. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
}

export interface DriverResponse {
  status: number;
  headers: MultiValueHeaders;
  body: Uint8Array;
  /** False when the body was cut (the connection or stream ended in error); `body` holds what arrived first. */
  complete: boolean;
  text(): string;
  json(): unknown;
}

export interface Driver {
  send(request: DriverRequest): Promise<DriverResponse>;
  close(): Promise<void>;
}

export interface DriverFactory {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: the suite's app has many registered names.
  open(app: RestApplication<any>): Promise<Driver>;
  /** Behaviours this driver cannot show, by test title, each with the reason. */
  skips?: Readonly<Record<string, string>>;
}

export function makeResponse(
  status: number,
  headers: MultiValueHeaders,
  body: Uint8Array,
  complete = true,
): DriverResponse {
  return {
    status,
    headers,
    body,
    complete,
    text: () => new TextDecoder().decode(body),
    json: () => JSON.parse(new TextDecoder().decode(body)),
  };
}

export { MultiValueHeaders };

/** Reads `chunks` to their end, or to the error that cuts them, keeping what arrived. */
export async function readChunks(
  chunks: AsyncIterable<Uint8Array | string>,
): Promise<{ body: Uint8Array; complete: boolean }> {
  const parts: Uint8Array[] = [];
  let complete = true;
  try {
    for await (const chunk of chunks) {
      parts.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
    }
  } catch {
    complete = false;
  }
  return { body: new Uint8Array(Buffer.concat(parts)), complete };
}
