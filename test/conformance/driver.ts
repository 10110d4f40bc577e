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
): DriverResponse {
  return {
    status,
    headers,
    body,
    text: () => new TextDecoder().decode(body),
    json: () => JSON.parse(new TextDecoder().decode(body)),
  };
}

export { MultiValueHeaders };
