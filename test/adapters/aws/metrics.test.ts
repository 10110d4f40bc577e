/**
 * Embedded Metric Format output: one line per invocation, valid against the EMF specification,
 * with the names, dimensions and properties, namespace and service precedence that
 * docs/aws-lambda.md describes, and handler-added metrics on the same line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CloudGatewayAdapter,
  type CloudGatewayAdapterOptions,
  DEFAULT_METRICS_PUBLISHER,
  EmfMetricsPublisher,
  type MetricsEntry,
} from '../../../src/adapters/aws/index.js';
import { RestApplication, silentLogger } from '../../../src/index.js';
import { parseEmf } from './emf-schema.js';
import { albEvent, captureLogger, lambdaContext, restEvent, v2Event } from './fixtures.js';

function buildApp() {
  const app = new RestApplication({ logger: silentLogger });
  app.get('/users/{id}', ({ id }) => ({ id }));
  app.post('/users', () => [{ created: true }, 201]);
  app.get('/boom', () => {
    throw new Error('kaput');
  });
  app.get('/custom', ({ metrics }) => {
    metrics.addMetric('CartSize', 'Count', 3);
    metrics.addMetric('CartSize', 'Count', 5);
    metrics.addMetric('PaymentLatency', 'Milliseconds', 12.5);
    metrics.addDimension('tenant', 'acme');
    metrics.addProperty('orderId', 'o-991');
    return 'ok';
  });
  app.get('/bad-unit', ({ metrics }) => {
    try {
      // @ts-expect-error: the unit is typed; JavaScript callers are checked at run time.
      metrics.addMetric('Weird', 'Furlongs', 1);
      return 'accepted';
    } catch (error) {
      return `rejected: ${(error as Error).message}`;
    }
  });
  return app;
}

function capture(options: CloudGatewayAdapterOptions = {}) {
  const lines: string[] = [];
  const adapter = new CloudGatewayAdapter(buildApp(), {
    metricsPublisher: new EmfMetricsPublisher({ write: (line) => lines.push(line) }),
    ...options,
  });
  return { adapter, lines };
}

const ENV_NAMES = [
  'RESTMACHINE_METRICS_NAMESPACE',
  'RESTMACHINE_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_SERVICE_NAME',
  'AWS_LAMBDA_FUNCTION_NAME',
];
let savedEnv: Record<string, string | undefined> = {};
beforeEach(() => {
  savedEnv = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));
  for (const name of ENV_NAMES) delete process.env[name];
});
afterEach(() => {
  for (const name of ENV_NAMES) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

describe('EMF lines', () => {
  it('one valid line per invocation with latency, count and error metrics by route template', async () => {
    const { adapter, lines } = capture({ serviceName: 'users' });
    const context = lambdaContext();
    const event = v2Event({ method: 'GET', path: '/users/42?x=1' });
    await adapter.handleEvent(event, context);
    expect(lines).toHaveLength(1);
    const line = parseEmf(lines[0] as string);
    const directive = line._aws.CloudWatchMetrics[0];
    expect(directive?.Namespace).toBe('restmachine');
    expect(directive?.Dimensions).toEqual([['service', 'method', 'route']]);
    expect(directive?.Metrics).toEqual([
      { Name: 'Latency', Unit: 'Milliseconds' },
      { Name: 'Count', Unit: 'Count' },
      { Name: '4XXError', Unit: 'Count' },
      { Name: '5XXError', Unit: 'Count' },
    ]);
    expect(line).toMatchObject({
      service: 'users',
      method: 'GET',
      route: '/users/{id}',
      Count: 1,
      '4XXError': 0,
      '5XXError': 0,
      statusCode: 200,
      path: '/users/42',
      requestId: event.requestContext.requestId,
      awsRequestId: context.awsRequestId,
    });
    expect(line.Latency).toBeGreaterThanOrEqual(0);
    expect(Math.abs(line._aws.Timestamp - Date.now())).toBeLessThan(60_000);
  });

  it('counts 4xx and 5xx, and labels unmatched paths and unknown methods with bounded values', async () => {
    const { adapter, lines } = capture();
    await adapter.handleEvent(restEvent({ method: 'GET', path: '/nowhere/at/all' }));
    await adapter.handleEvent(restEvent({ method: 'GET', path: '/boom' }));
    await adapter.handleEvent(restEvent({ method: 'BREW', path: '/users/1' }));
    await adapter.handleEvent(
      albEvent({
        method: 'POST',
        path: '/users',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    const [missing, boom, brew, created] = lines.map(parseEmf);
    expect(missing).toMatchObject({
      route: 'NOT_FOUND',
      statusCode: 404,
      '4XXError': 1,
      '5XXError': 0,
      path: '/nowhere/at/all',
    });
    expect(boom).toMatchObject({ route: '/boom', statusCode: 500, '4XXError': 0, '5XXError': 1 });
    expect(brew).toMatchObject({ method: 'OTHER', statusCode: 501, '5XXError': 1 });
    expect(created).toMatchObject({
      method: 'POST',
      route: '/users',
      statusCode: 201,
      '4XXError': 0,
    });
  });

  it('adds StorageResolution 1 only for high-resolution metrics', async () => {
    const { adapter, lines } = capture({ metricsResolution: 1 });
    await adapter.handleEvent(v2Event({ method: 'GET', path: '/users/1' }));
    const metrics = parseEmf(lines[0] as string)._aws.CloudWatchMetrics[0]?.Metrics ?? [];
    expect(metrics.every((metric) => metric.StorageResolution === 1)).toBe(true);
  });

  it('puts handler-added metrics, a second dimension set and properties on the same line', async () => {
    const { adapter, lines } = capture({ serviceName: 'shop' });
    await adapter.handleEvent(v2Event({ method: 'GET', path: '/custom' }));
    expect(lines).toHaveLength(1);
    const line = parseEmf(lines[0] as string);
    const directive = line._aws.CloudWatchMetrics[0];
    expect(directive?.Dimensions).toEqual([
      ['service', 'method', 'route'],
      ['service', 'tenant'],
    ]);
    expect(directive?.Metrics).toContainEqual({ Name: 'CartSize', Unit: 'Count' });
    expect(directive?.Metrics).toContainEqual({ Name: 'PaymentLatency', Unit: 'Milliseconds' });
    expect(line).toMatchObject({
      CartSize: [3, 5],
      PaymentLatency: 12.5,
      tenant: 'acme',
      orderId: 'o-991',
      service: 'shop',
    });
  });

  it('rejects a unit CloudWatch does not know, at the call', async () => {
    const { adapter } = capture();
    const result = await adapter.handleEvent(v2Event({ method: 'GET', path: '/bad-unit' }));
    expect(result.body).toMatch(/^rejected: Unknown metric unit "Furlongs"/);
  });
});

describe('namespace and service name', () => {
  async function dimensionsOf(options: CloudGatewayAdapterOptions, functionName?: string) {
    const { adapter, lines } = capture(options);
    await adapter.handleEvent(
      v2Event({ method: 'GET', path: '/users/1' }),
      lambdaContext(functionName ? { functionName } : {}),
    );
    const line = parseEmf(lines[0] as string);
    return { namespace: line._aws.CloudWatchMetrics[0]?.Namespace, service: line.service };
  }

  it('follow constructor, then RESTMACHINE_*, then POWERTOOLS_*, then the function name', async () => {
    expect(await dimensionsOf({}, 'orders-fn')).toEqual({
      namespace: 'restmachine',
      service: 'orders-fn',
    });
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'orders-env-fn';
    expect(await dimensionsOf({}, 'orders-fn')).toEqual({
      namespace: 'restmachine',
      service: 'orders-env-fn',
    });
    process.env.POWERTOOLS_METRICS_NAMESPACE = 'PowertoolsNs';
    process.env.POWERTOOLS_SERVICE_NAME = 'powertools-svc';
    expect(await dimensionsOf({})).toEqual({
      namespace: 'PowertoolsNs',
      service: 'powertools-svc',
    });
    process.env.RESTMACHINE_METRICS_NAMESPACE = 'RestmachineNs';
    process.env.RESTMACHINE_SERVICE_NAME = 'restmachine-svc';
    expect(await dimensionsOf({})).toEqual({
      namespace: 'RestmachineNs',
      service: 'restmachine-svc',
    });
    expect(await dimensionsOf({ namespace: 'Shop', serviceName: 'checkout' })).toEqual({
      namespace: 'Shop',
      service: 'checkout',
    });
  });
});

describe('publishers', () => {
  it('a custom publisher receives the entry; null and enableMetrics: false publish nothing', async () => {
    const entries: MetricsEntry[] = [];
    const publisher = { publish: (entry: MetricsEntry) => void entries.push(entry) };
    const custom = new CloudGatewayAdapter(buildApp(), {
      metricsPublisher: publisher,
      namespace: 'Shop',
      serviceName: 'users',
    });
    await custom.handleEvent(v2Event({ method: 'GET', path: '/users/9' }));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      namespace: 'Shop',
      resolution: 60,
      dimensions: [{ service: 'users', method: 'GET', route: '/users/{id}' }],
      properties: { statusCode: 200, path: '/users/9' },
    });
    expect(entries[0]?.metrics.map((metric) => metric.name)).toEqual([
      'Latency',
      'Count',
      '4XXError',
      '5XXError',
    ]);

    const off = new CloudGatewayAdapter(buildApp(), {
      metricsPublisher: publisher,
      enableMetrics: false,
    });
    const offResult = await off.handleEvent(v2Event({ method: 'GET', path: '/custom' }));
    expect(offResult.body).toBe('ok'); // the injected `metrics` is a no-op, not missing
    const none = new CloudGatewayAdapter(buildApp(), { metricsPublisher: null });
    await none.handleEvent(v2Event({ method: 'GET', path: '/custom' }));
    expect(entries).toHaveLength(1);
  });

  it('a failing publisher never fails the invocation; the failure is logged', async () => {
    const { logger, lines } = captureLogger();
    const adapter = new CloudGatewayAdapter(buildApp(), {
      logger,
      metricsPublisher: {
        publish: async () => {
          throw new Error('metrics sink down');
        },
      },
    });
    const result = await adapter.handleEvent(v2Event({ method: 'GET', path: '/users/1' }));
    expect(result.statusCode).toBe(200);
    expect(lines.some((line) => line.level === 'error' && /metrics/i.test(line.message))).toBe(
      true,
    );
  });

  it('by default writes one EMF line per invocation to the real stdout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'restmachine-emf-'));
    const script = join(dir, 'handler.mts'); // .mts: an ES module wherever it sits
    const root = resolve(import.meta.dirname, '../../..');
    writeFileSync(
      script,
      [
        `import { RestApplication, silentLogger } from ${JSON.stringify(join(root, 'src/index.ts'))};`,
        `import { CloudGatewayAdapter, DEFAULT_METRICS_PUBLISHER } from ${JSON.stringify(join(root, 'src/adapters/aws/index.ts'))};`,
        `import { v2Event } from ${JSON.stringify(join(root, 'test/adapters/aws/fixtures.ts'))};`,
        'const app = new RestApplication({ logger: silentLogger });',
        "app.get('/ping', () => 'pong');",
        'const plain = new CloudGatewayAdapter(app);',
        'const marked = new CloudGatewayAdapter(app, { metricsPublisher: DEFAULT_METRICS_PUBLISHER });',
        "await plain.handler(v2Event({ method: 'GET', path: '/ping' }));",
        "await marked.handler(v2Event({ method: 'GET', path: '/nope' }));",
      ].join('\n'),
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, AWS_LAMBDA_FUNCTION_NAME: 'ping-fn' },
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    const lines = child.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(2);
    const [first, second] = lines.map(parseEmf);
    expect(first).toMatchObject({ service: 'ping-fn', route: '/ping', statusCode: 200 });
    expect(second).toMatchObject({ route: 'NOT_FOUND', statusCode: 404 });
    expect(DEFAULT_METRICS_PUBLISHER).toBe(Symbol.for('restmachine.aws.defaultMetricsPublisher'));
  });
});
