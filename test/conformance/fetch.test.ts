/**
 * The conformance suite through the Fetch adapter: each case becomes a WHATWG `Request` handed
 * to `adapter.fetch`, and the WHATWG `Response` it returns is read back, as a Fetch runtime
 * (Bun, Deno, Workers) would.
 */
import { FetchAdapter } from '../../src/adapters/fetch/index.js';
import { type DriverFactory, MultiValueHeaders, makeResponse, readChunks } from './driver.js';
import { conformanceSuite } from './suite.js';

export const fetchDriver: DriverFactory = {
  name: 'Fetch adapter',
  async open(app) {
    const adapter = new FetchAdapter(app);
    return {
      async send(request) {
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers ?? {})) {
          for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
        }
        const response = await adapter.fetch(
          new Request(`http://localhost${request.path}`, {
            method: request.method,
            headers,
            body: request.body ?? null,
          }),
        );
        const read =
          response.body === null
            ? { body: new Uint8Array(), complete: true }
            : await readChunks(response.body);
        return makeResponse(
          response.status,
          new MultiValueHeaders(response.headers),
          read.body,
          read.complete,
        );
      },
      async close() {},
    };
  },
};

conformanceSuite(fetchDriver);
