/**
 * Core worker: the cost of `app.execute()` per request for one contender, in a fresh process.
 * Every contender builds a new Request per call (the pipeline writes request state, so reusing
 * one would skip work), which costs the same on every side.
 */
import { randomUUID } from 'node:crypto';
import { Request, Response, RestApplication } from '../../src/index.js';
import { costPerCall, report, workerArgs } from '../lib/timing.js';

const BODY = { hello: 'world' };
const ETAG = '"v1"';

function request(headers: Record<string, string> = {}): Request {
  return new Request({
    method: 'GET',
    path: '/hello',
    headers: { accept: 'application/json', 'user-agent': 'bench', ...headers },
  });
}

/** The app of the first scenario: one route, no providers. */
function smallApp(): RestApplication {
  const app = new RestApplication();
  app.get('/hello', () => BODY);
  return app;
}

/** The same route after 100 other routes and 10 dependencies nobody uses. */
function registeredApp(): RestApplication {
  const app = new RestApplication();
  for (let i = 0; i < 10; i++) app.dependency(`unused${i}`, () => i);
  for (let i = 0; i < 100; i++) {
    if (i % 2 === 0) app.get(`/r${i}/items/{id}`, ({ id }) => ({ id }));
    else app.post(`/hello/r${i}/{name}`, ({ name }) => ({ name }));
  }
  app.get('/hello', () => BODY);
  return app;
}

interface EtagRoute {
  etag?: (provider: () => string) => unknown;
}

function etagApp(): RestApplication {
  const app = new RestApplication();
  const route = app.get('/hello', () => BODY) as unknown as EtagRoute;
  if (typeof route.etag !== 'function') throw new Error('Route.prototype.etag does not exist');
  route.etag(() => ETAG);
  return app;
}

type Execute = () => Promise<Response>;

/**
 * The floor: an async function that looks the route up in a Map and builds, by hand, the
 * Response execute() gives (status, JSON body, Content-Type, Content-Length, X-Request-ID).
 */
function handBuilt(): Execute {
  const routes = new Map<string, (request: Request) => Response>([
    [
      'GET /hello',
      () => {
        const body = JSON.stringify(BODY);
        return new Response(200, body, {
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': String(Buffer.byteLength(body)),
            'X-Request-ID': randomUUID(),
          },
        });
      },
    ],
  ]);
  return async () => {
    const incoming = request();
    const route = routes.get(`${incoming.method} ${incoming.path}`);
    if (route === undefined) return new Response(404);
    return route(incoming);
  };
}

const CONTENDERS: Record<string, () => { execute: Execute; status: number }> = {
  'hand-built': () => ({ execute: handBuilt(), status: 200 }),
  restmachine: () => {
    const app = smallApp();
    return { execute: () => app.execute(request()), status: 200 };
  },
  'restmachine-registered': () => {
    const app = registeredApp();
    return { execute: () => app.execute(request()), status: 200 };
  },
  'etag-200': () => {
    const app = etagApp();
    return { execute: () => app.execute(request()), status: 200 };
  },
  'etag-304': () => {
    const app = etagApp();
    return { execute: () => app.execute(request({ 'if-none-match': ETAG })), status: 304 };
  },
};

const args = workerArgs();
const make = CONTENDERS[args.contender];
if (make === undefined) throw new Error(`Unknown contender ${args.contender}`);
const { execute, status } = make();

const first = await execute();
if (first.statusCode !== status) {
  throw new Error(
    `${args.contender}: expected ${status}, got ${first.statusCode} ${String(first.body)}`,
  );
}
if (status === 200 && first.body !== JSON.stringify(BODY)) {
  throw new Error(`${args.contender}: unexpected body ${String(first.body)}`);
}
await costPerCall(execute, args.warmupMs);
report({ costs: { execute: await costPerCall(execute, args.durationMs) } });
