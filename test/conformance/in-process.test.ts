import { Request, type Response } from '../../src/index.js';
import { bodyBytes } from '../../src/response.js';
import { type DriverFactory, makeResponse } from './driver.js';
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
        return makeResponse(response.statusCode, response.headers, await bodyBytes(response));
      },
      async close() {},
    };
  },
};

conformanceSuite(inProcessDriver);
