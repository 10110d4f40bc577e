/**
 * The conformance suite through a real Node server (`serve()` on a free loopback port) and a
 * real HTTP client. The client is `node:http` rather than `fetch` because `fetch` normalises
 * request targets; `http.request` sends the path byte for byte, so `//x` and `%2F` reach the
 * server exactly as the cases write them.
 */
import { Agent, request as httpRequest } from 'node:http';
import { serve } from '../../src/adapters/node/index.js';
import {
  type DriverFactory,
  type DriverRequest,
  MultiValueHeaders,
  makeResponse,
} from './driver.js';
import { conformanceSuite } from './suite.js';

function send(agent: Agent, port: number, request: DriverRequest) {
  return new Promise<ReturnType<typeof makeResponse>>((resolve, reject) => {
    const headers: Record<string, string | string[]> = { ...request.headers };
    if (request.body !== undefined) {
      headers['content-length'] = String(
        typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.length,
      );
    }
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        // The connection closed before the body's end: the response is cut, and says so.
        incoming.on('error', () => finish(false));
        incoming.on('end', () => finish(true));
        const finish = (complete: boolean) => {
          const pairs: Array<[string, string]> = [];
          const raw = incoming.rawHeaders;
          for (let i = 0; i + 1 < raw.length; i += 2) {
            pairs.push([raw[i] as string, raw[i + 1] as string]);
          }
          resolve(
            makeResponse(
              incoming.statusCode ?? 0,
              new MultiValueHeaders(pairs),
              new Uint8Array(Buffer.concat(chunks)),
              complete,
            ),
          );
        };
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

export const nodeDriver: DriverFactory = {
  name: 'Node server serve() + node:http client',
  skips: {
    'an unknown method is 501':
      "Node's HTTP parser (llhttp) answers 400 itself for a method outside its table, such as " +
      'BREW, before any application code runs. Methods Node parses but restmachine does not ' +
      'route (PROPFIND, PURGE) reach the pipeline and get 501: test/adapters/node/http.test.ts.',
  },
  async open(app) {
    const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
    const agent = new Agent({ keepAlive: true });
    return {
      send: (request) => send(agent, server.port, request),
      async close() {
        agent.destroy();
        await server.close();
      },
    };
  },
};

conformanceSuite(nodeDriver);
