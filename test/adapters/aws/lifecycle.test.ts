/**
 * Cold start and construction: startup begins in the constructor and is shared by concurrent
 * first invocations; a failed startup rejects every invocation with its error, logged; invalid
 * options fail at construction.
 */
import { describe, expect, it } from 'vitest';
import {
  AwsApiGatewayAdapter,
  CloudGatewayAdapter,
  EmfMetricsPublisher,
} from '../../../src/adapters/aws/index.js';
import { RestApplication, SetupError, silentLogger } from '../../../src/index.js';
import { parseEmf } from './emf-schema.js';
import { captureLogger, lambdaContext, readV2Result, restEvent, v2Event } from './fixtures.js';
import { installRuntime, invoke } from './stream-runtime.js';

describe('startup', () => {
  it('starts in the constructor, and concurrent first invocations share that one startup', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const app = new RestApplication({ logger: silentLogger }).onStartup('db', async () => {
      runs += 1;
      await gate;
      return { name: 'orders-db' };
    });
    app.get('/db', ({ db }) => db);
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    expect(runs).toBe(1); // begun during the cold start, before any event
    const pending = Array.from({ length: 5 }, () =>
      adapter.handleEvent(v2Event({ method: 'GET', path: '/db' }), lambdaContext()),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    const results = await Promise.all(pending);
    expect(runs).toBe(1);
    for (const result of results) {
      expect(JSON.parse(new TextDecoder().decode(readV2Result(result).body))).toEqual({
        name: 'orders-db',
      });
    }
  });

  it('tries startup again on the next event, so an instance started during an outage recovers', async () => {
    const { logger, lines } = captureLogger();
    let reachable = false;
    let configs = 0;
    const app = new RestApplication({ logger })
      .onStartup('config', () => {
        configs += 1;
        return { url: 'postgres://db' };
      })
      .onStartup('db', ({ config }) => {
        if (!reachable) throw new Error(`connect ECONNREFUSED ${config.url}`);
        return config.url;
      });
    app.get('/', ({ db }) => ({ db }));
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    await expect(
      adapter.handleEvent(restEvent({ method: 'GET', path: '/' }), lambdaContext()),
    ).rejects.toThrow('ECONNREFUSED');
    reachable = true;
    const result = (await adapter.handleEvent(
      restEvent({ method: 'GET', path: '/' }),
      lambdaContext(),
    )) as { statusCode: number; body: string };
    expect([result.statusCode, JSON.parse(result.body)]).toEqual([200, { db: 'postgres://db' }]);
    expect(configs).toBe(1);
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
  });

  it("reports the cold start's own failure to the first event, without trying again first", async () => {
    const { logger, lines } = captureLogger();
    let attempts = 0;
    const app = new RestApplication({ logger }).onStartup('db', async () => {
      attempts += 1;
      throw new Error(`connect timeout (attempt ${attempts})`);
    });
    app.get('/', ({ db }) => db);
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    await expect(
      adapter.handleEvent(restEvent({ method: 'GET', path: '/' }), lambdaContext()),
    ).rejects.toThrow('connect timeout (attempt 1)');
    expect(attempts).toBe(1);
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
    // The next event tries again.
    await expect(
      adapter.handleEvent(restEvent({ method: 'GET', path: '/' }), lambdaContext()),
    ).rejects.toThrow('connect timeout (attempt 2)');
  });

  it('rejects every invocation with the startup error and logs it each time', async () => {
    const { logger, lines } = captureLogger();
    const failure = new Error('database unreachable: connect ECONNREFUSED 10.0.0.5:5432');
    let handled = 0;
    const app = new RestApplication({ logger }).onStartup('db', () => {
      throw failure;
    });
    app.get('/', () => {
      handled += 1;
      return 'never';
    });
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    for (let i = 0; i < 3; i++) {
      const context = lambdaContext();
      const event = restEvent({ method: 'GET', path: '/' });
      await expect(adapter.handleEvent(event, context)).rejects.toBe(failure);
      const last = lines.at(-1);
      expect(last?.level).toBe('error');
      expect(last?.message).toMatch(/startup failed/);
      expect(last?.fields?.error).toBe(failure);
      expect(last?.fields?.awsRequestId).toBe(context.awsRequestId);
      // The id the request would have had, under the name every request's line uses.
      expect(last?.fields?.requestId).toBe(event.requestContext.requestId);
    }
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(3);
    expect(handled).toBe(0);
  });

  it('writes the rejected invocation its metrics line, a 500 on the route STARTUP_FAILED', async () => {
    const failure = new Error('database unreachable');
    const app = new RestApplication({ logger: silentLogger }).onStartup('db', () => {
      throw failure;
    });
    app.get('/users/{id}', ({ id }) => id);
    const lines: string[] = [];
    const adapter = new CloudGatewayAdapter(app, {
      serviceName: 'users',
      metricsPublisher: new EmfMetricsPublisher({ write: (line) => lines.push(line) }),
    });
    const event = restEvent({ method: 'GET', path: '/users/7' });
    const context = lambdaContext();
    await expect(adapter.handleEvent(event, context)).rejects.toBe(failure);
    const uninstall = installRuntime();
    try {
      const { done } = invoke(
        adapter.streamHandler,
        v2Event({ method: 'POST', path: '/users/8' }, { functionUrl: true }),
      );
      expect((await done).error).toBe(failure);
    } finally {
      uninstall();
    }
    expect(lines).toHaveLength(2);
    const [buffered, streamed] = lines.map((line) => parseEmf(line));
    expect(buffered).toMatchObject({
      service: 'users',
      method: 'GET',
      route: 'STARTUP_FAILED',
      Count: 1,
      '4XXError': 0,
      '5XXError': 1,
      statusCode: 500,
      path: '/users/7',
      requestId: event.requestContext.requestId,
      awsRequestId: context.awsRequestId,
    });
    expect(buffered?.Latency).toEqual(expect.any(Number));
    expect(streamed).toMatchObject({
      method: 'POST',
      route: 'STARTUP_FAILED',
      '5XXError': 1,
      path: '/users/8',
    });
  });

  it('rejects when a route injects a name nobody registered (startup checks routes)', async () => {
    const app = new RestApplication({ logger: silentLogger });
    // A route written in plain JavaScript can name anything; the type system catches it in TypeScript.
    app.get('/x', (({ missing }: { missing: unknown }) => missing) as never);
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    await expect(adapter.handleEvent(v2Event({ method: 'GET', path: '/x' }))).rejects.toThrow(
      /missing/,
    );
  });
});

describe('construction', () => {
  const app = () => new RestApplication({ logger: silentLogger });

  it('accepts a metrics resolution of 1 or 60 only', () => {
    expect(() => new CloudGatewayAdapter(app(), { metricsResolution: 1 })).not.toThrow();
    expect(() => new CloudGatewayAdapter(app(), { metricsResolution: 60 })).not.toThrow();
    for (const bad of [0, 5, 30, 61, Number.NaN]) {
      expect(() => new CloudGatewayAdapter(app(), { metricsResolution: bad as 1 })).toThrow(
        SetupError,
      );
    }
    expect(() => new CloudGatewayAdapter(app(), { metricsResolution: 30 as 1 })).toThrow(/1 or 60/);
  });

  it('rejects a metrics publisher without publish() and a basePath with a query', () => {
    expect(() => new CloudGatewayAdapter(app(), { metricsPublisher: {} as never })).toThrow(
      /publish/,
    );
    expect(() => new CloudGatewayAdapter(app(), { basePath: '/api?x=1' })).toThrow(/basePath/);
  });

  it('exposes a bound handler and the AwsApiGatewayAdapter alias', async () => {
    const application = app();
    application.get('/ping', () => 'pong');
    const { handler } = new AwsApiGatewayAdapter(application, { metricsPublisher: null });
    const result = await handler(v2Event({ method: 'GET', path: '/ping' }), lambdaContext());
    expect((result as { body: string }).body).toBe('pong');
    expect(AwsApiGatewayAdapter).toBe(CloudGatewayAdapter);
  });
});
