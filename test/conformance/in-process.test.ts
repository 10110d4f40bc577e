import { Request, type Response } from '../../src/index.js';
import { bodyBytes, isStream, streamChunks } from '../../src/response.js';
import { type DriverFactory, makeResponse, readChunks } from './driver.js';
import { conformanceSuite } from './suite.js';

/** Drives the application with `app.execute()`: no transport at all. */
export const inProcessDriver: DriverFactory = {
  name: 'in-process execute()',
  async open(app) {
    return {
      async send(request) {
        const response: Response = await app.execute(
          new Request({
            method: request.method,
            path: request.path,
            headers: request.headers ?? null,
            body: request.body ?? null,
          }),
        );
        const body = response.body;
        if (isStream(body)) {
          const read = await readChunks(Symbol.asyncIterator in body ? body : streamChunks(body));
          return makeResponse(response.statusCode, response.headers, read.body, read.complete);
        }
        return makeResponse(response.statusCode, response.headers, await bodyBytes(response));
      },
      async close() {},
    };
  },
};

conformanceSuite(inProcessDriver);
