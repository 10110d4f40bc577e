/**
 * What CloudWatch and JSON refuse never costs an invocation its metrics line: properties JSON
 * cannot encode, dimensions and namespaces CloudWatch rejects, names that are Object.prototype
 * members, non-ASCII route templates, and a streamed body that fails after the prelude
 * (docs/aws-lambda.md, "Metrics").
 */
import fc from 'fast-check';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CloudGatewayAdapter,
  type CloudGatewayAdapterOptions,
  EmfMetricsPublisher,
  type MetricsEntry,
} from '../../../src/adapters/aws/index.js';
import {
  type MetricsRecorder,
  Response,
  RestApplication,
  SetupError,
  silentLogger,
} from '../../../src/index.js';
import { type EmfLine, parseEmf } from './emf-schema.js';
import { captureLogger, v2Event } from './fixtures.js';
import { installRuntime, invoke } from './stream-runtime.js';

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
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

/**
 * An adapter whose `/run` route hands the injectable `metrics` to whatever `use` is set to, and
 * answers with the error that call threw, if any; EMF lines are collected in `lines`.
 */
function harness(options: CloudGatewayAdapterOptions = {}) {
  const lines: string[] = [];
  const state: { use: (metrics: MetricsRecorder) => void } = { use: () => {} };
  const app = new RestApplication({ logger: silentLogger });
  app.get('/run', ({ metrics }) => {
    try {
      state.use(metrics);
      return 'accepted';
    } catch (error) {
      return `rejected ${(error as Error).name}: ${(error as Error).message}`;
    }
  });
  app.get('/café/{x}', ({ x }) => x);
  const adapter = new CloudGatewayAdapter(app, {
    metricsPublisher: new EmfMetricsPublisher({ write: (line) => lines.push(line) }),
    serviceName: 'shop',
    ...options,
  });
  /** Runs `use` in one invocation; returns the answer and that invocation's parsed line. */
  async function run(use: (metrics: MetricsRecorder) => void) {
    state.use = use;
    lines.length = 0;
    const result = await adapter.handleEvent(v2Event({ method: 'GET', path: '/run' }));
    expect(lines).toHaveLength(1);
    return { body: result.body ?? '', document: parseEmf(lines[0] as string) };
  }
  return { adapter, lines, run };
}

/** The built-in metrics that must survive whatever a handler added. */
function expectBuiltIns(document: EmfLine) {
  expect(document.Latency).toEqual(expect.any(Number));
  expect(document.Count).toBe(1);
  expect(document['4XXError']).toBe(0);
  expect(document['5XXError']).toBe(0);
  expect(document.statusCode).toBe(200);
}

/** Every dimension name and value of the line is one CloudWatch accepts. */
function expectDimensionsCloudWatchTakes(document: EmfLine) {
  for (const set of document._aws.CloudWatchMetrics[0]?.Dimensions ?? []) {
    for (const name of set) {
      expect(name).toMatch(PRINTABLE_ASCII);
      expect(name).toMatch(/\S/);
      expect(name.startsWith(':')).toBe(false);
      expect(document[name]).toMatch(PRINTABLE_ASCII);
      expect(document[name]).toMatch(/\S/);
    }
  }
}

describe('properties JSON cannot encode', () => {
  it('are refused at addProperty, and the line still goes out', async () => {
    const { run } = harness();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    for (const value of [10n, cyclic, () => 1, Symbol('s'), undefined]) {
      const { body, document } = await run((metrics) => metrics.addProperty('big', value));
      expect(body).toMatch(/^rejected TypeError: Property "big" cannot be encoded as JSON/);
      expectBuiltIns(document);
      expect(document).not.toHaveProperty('big');
    }
  });

  it('made unencodable after the call are left out of the line, with one log line', async () => {
    const { logger, lines: logged } = captureLogger();
    const { run } = harness({ logger });
    const { body, document } = await run((metrics) => {
      const order: Record<string, unknown> = { id: 'o-1' };
      metrics.addProperty('order', order);
      metrics.addProperty('tenant', 'acme');
      order.total = 10n;
    });
    expect(body).toBe('accepted');
    expectBuiltIns(document);
    expect(document.tenant).toBe('acme');
    expect(document).not.toHaveProperty('order');
    const errors = logged.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields?.error).toBeInstanceOf(TypeError);
    expect(String(errors[0]?.fields?.error)).toContain('order');
  });
});

describe("the line's size, which CloudWatch limits to 1 MB", () => {
  it('a property over 256 Ki characters of JSON is refused at addProperty; the line goes out', async () => {
    const { run } = harness();
    const { body, document } = await run((metrics) =>
      metrics.addProperty('blob', 'x'.repeat(2_000_000)),
    );
    expect(body).toMatch(/^rejected RangeError: Property "blob" is 2000002 characters of JSON/);
    expectBuiltIns(document);
    expect(document).not.toHaveProperty('blob');
  });

  it('a line grown past 1 MB after the calls leaves out its largest properties, logged', async () => {
    const logged: Array<Record<string, unknown>> = [];
    const logger = pino({}, { write: (chunk: string) => logged.push(JSON.parse(chunk)) });
    const { lines, run } = harness({ logger });
    const { body, document } = await run((metrics) => {
      const grows: string[] = [];
      metrics.addProperty('grows', grows);
      metrics.addProperty('tenant', 'acme');
      for (let i = 0; i < 96; i++) {
        for (let j = 0; j < 100; j++)
          metrics.addMetric(`Metric${i}`, 'Milliseconds', j + 0.123456789);
      }
      // Within the limit when added, over it by the time the line is written.
      for (let i = 0; i < 10; i++) grows.push('é'.repeat(100_000));
    });
    expect(body).toBe('accepted');
    expect(Buffer.byteLength(lines[0] as string)).toBeLessThanOrEqual(1_000_000);
    expectBuiltIns(document);
    expect(document).not.toHaveProperty('grows');
    expect(document.tenant).toBe('acme');
    expect(document.Metric95).toHaveLength(100);
    expect(document._aws.CloudWatchMetrics[0]?.Metrics).toHaveLength(100);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 50,
      msg: 'Publishing metrics failed',
      error: { type: 'RangeError', message: expect.stringMatching(/over 1000000 bytes.*grows/) },
    });
  });
});

describe('dimensions, namespace and service name CloudWatch refuses', () => {
  it('addDimension refuses names and values CloudWatch rejects, and takes the longest it accepts', async () => {
    const { run } = harness();
    const refused: Array<[string, string]> = [
      ['a'.repeat(251), 'x'],
      ['café', 'x'],
      ['tab\there', 'x'],
      ['   ', 'x'],
      [':colon', 'x'],
      ['tenant', 'acmé'],
      ['tenant', '  '],
      ['tenant', 'line\nbreak'],
      ['tenant', 'x'.repeat(1025)],
      ['tenant', ''],
    ];
    for (const [name, value] of refused) {
      const { body, document } = await run((metrics) => metrics.addDimension(name, value));
      expect(body, `${name} = ${value}`).toMatch(/^rejected TypeError/);
      expect(document._aws.CloudWatchMetrics[0]?.Dimensions).toHaveLength(1);
    }
    const longest = 'n'.repeat(250);
    const { body, document } = await run((metrics) =>
      metrics.addDimension(longest, ` v:${'x'.repeat(1020)}`),
    );
    expect(body).toBe('accepted');
    expect(document._aws.CloudWatchMetrics[0]?.Dimensions[1]).toEqual(['service', longest]);
  });

  it('a namespace or service name CloudWatch rejects is a setup error', () => {
    const app = new RestApplication({ logger: silentLogger });
    const refused: CloudGatewayAdapterOptions[] = [
      { namespace: 'AWS/Lambda' },
      { namespace: ':colon' },
      { namespace: '' },
      { namespace: '   ' },
      { namespace: 'n'.repeat(256) },
      { namespace: 'café' },
      { serviceName: '' },
      { serviceName: ' ' },
      { serviceName: 'ünïcode' },
    ];
    for (const options of refused) {
      const make = () => new CloudGatewayAdapter(app, options);
      expect(make, JSON.stringify(options)).toThrow(SetupError);
      expect(make, JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION' }),
      );
    }
    process.env.RESTMACHINE_METRICS_NAMESPACE = 'AWS/Mine';
    expect(() => new CloudGatewayAdapter(app)).toThrow(SetupError);
    delete process.env.RESTMACHINE_METRICS_NAMESPACE;
    expect(() => new CloudGatewayAdapter(app, { namespace: 'n'.repeat(255) })).not.toThrow();
    // Metrics off: nothing is published, so nothing is checked.
    expect(
      () => new CloudGatewayAdapter(app, { namespace: 'AWS/x', enableMetrics: false }),
    ).not.toThrow();
  });

  it('a non-ASCII route template becomes a percent-encoded route dimension', async () => {
    const { adapter, lines } = harness();
    const result = await adapter.handleEvent(v2Event({ method: 'GET', path: '/caf%C3%A9/1' }));
    expect(result.statusCode).toBe(200);
    const document = parseEmf(lines[0] as string);
    expect(document.route).toBe('/caf%C3%A9/{x}');
    expectDimensionsCloudWatchTakes(document);
  });

  it('a route dimension over 1,024 characters is cut to 1,024, never inside an escape', async () => {
    const lines: string[] = [];
    const app = new RestApplication({ logger: silentLogger });
    // 'é' is six characters percent-encoded: 200 of them are 1,200.
    app.get(`/${'é'.repeat(200)}/{id}`, ({ id }) => id);
    app.get(`/${'a'.repeat(1100)}/{id}`, ({ id }) => id);
    app.get(`/${'a'.repeat(1021)}é/{id}`, ({ id }) => id);
    const adapter = new CloudGatewayAdapter(app, {
      serviceName: 'shop',
      metricsPublisher: new EmfMetricsPublisher({ write: (line) => lines.push(line) }),
    });
    const paths = [
      `/${encodeURIComponent('é'.repeat(200))}/1`,
      `/${'a'.repeat(1100)}/1`,
      `/${'a'.repeat(1021)}%C3%A9/1`,
    ];
    for (const path of paths) {
      const result = await adapter.handleEvent(v2Event({ method: 'GET', path }));
      expect(result.statusCode).toBe(200);
    }
    const routes = lines.map((line) => parseEmf(line).route as string);
    expect(routes[0]).toBe(`/${'%C3%A9'.repeat(170)}%C3`);
    expect(routes[1]).toBe(`/${'a'.repeat(1023)}`);
    // "%C3" would start at 1,022 and end past 1,024.
    expect(routes[2]).toBe(`/${'a'.repeat(1021)}`);
    for (const line of lines) expectDimensionsCloudWatchTakes(parseEmf(line));
  });

  it('any name and value addDimension accepts gives a line that passes the EMF check', async () => {
    const { run } = harness();
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({
        unit: fc.constantFrom('a', ' ', ':', '\t', 'é', '\u0000', '😀', '/'),
        maxLength: 6,
      }),
      fc.constantFrom('__proto__', 'toString', 'constructor', 'hasOwnProperty', 'service', '_aws'),
      fc.nat({ max: 1100 }).map((length) => 'x'.repeat(length)),
    );
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(text, text, async (name, value) => {
        const { body, document } = await run((metrics) => metrics.addDimension(name, value));
        expectBuiltIns(document);
        expectDimensionsCloudWatchTakes(document);
        if (body !== 'accepted') return;
        accepted++;
        // A set, whose order JavaScript decides for integer-like names such as "0".
        expect(document._aws.CloudWatchMetrics[0]?.Dimensions[1]?.sort()).toEqual(
          ['service', name].sort(),
        );
        expect(Object.hasOwn(document, name)).toBe(true);
        expect(document[name]).toBe(value);
      }),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(20);
  });
});

describe('metrics added after the line went out', () => {
  it('throw a TypeError at the call, from a handler still running after its 503', async () => {
    const lines: string[] = [];
    const late: unknown[] = [];
    let finished: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 50 });
    app.get('/slow', async ({ metrics }) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      for (const add of [
        () => metrics.addMetric('Late', 'Count', 1),
        () => metrics.addDimension('tenant', 'acme'),
        () => metrics.addProperty('note', 'late'),
      ]) {
        try {
          add();
          late.push('accepted');
        } catch (error) {
          late.push(error);
        }
      }
      finished();
      return 'too late';
    });
    const adapter = new CloudGatewayAdapter(app, {
      serviceName: 'shop',
      metricsPublisher: new EmfMetricsPublisher({ write: (line) => lines.push(line) }),
    });
    const result = await adapter.handleEvent(v2Event({ method: 'GET', path: '/slow' }));
    expect(result.statusCode).toBe(503);
    await done;
    expect(lines).toHaveLength(1);
    expect(parseEmf(lines[0] as string)).not.toHaveProperty('Late');
    expect(late).toHaveLength(3);
    for (const error of late) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/already published/);
    }
  });
});

describe('names that are Object.prototype members', () => {
  it('are ordinary metric, dimension and property names', async () => {
    const { run } = harness();
    const { body, document } = await run((metrics) => {
      metrics.addMetric('toString', 'Count', 1);
      metrics.addMetric('valueOf', 'Count', 2);
      metrics.addDimension('constructor', 'c');
      metrics.addDimension('__proto__', 'p');
      metrics.addProperty('hasOwnProperty', 'h');
      metrics.addProperty('isPrototypeOf', { nested: true });
    });
    expect(body).toBe('accepted');
    expectBuiltIns(document);
    expect(document._aws.CloudWatchMetrics[0]?.Dimensions[1]).toEqual([
      'service',
      'constructor',
      '__proto__',
    ]);
    expect(Object.hasOwn(document, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(document, '__proto__')?.value).toBe('p');
    expect(document.constructor).toBe('c');
    expect(document.toString).toBe(1);
    expect(document.valueOf).toBe(2);
    expect(document.hasOwnProperty).toBe('h');
    expect(document.isPrototypeOf).toEqual({ nested: true });
  });

  it('still clash with each other as names do', async () => {
    const { run } = harness();
    const { body } = await run((metrics) => {
      metrics.addDimension('toString', 'x');
      metrics.addProperty('toString', 'y');
    });
    expect(body).toMatch(/^rejected TypeError: "toString" is already used/);
  });
});

describe('streamHandler', () => {
  let uninstall: () => void;
  beforeEach(() => {
    uninstall = installRuntime();
  });
  afterEach(() => uninstall());

  it('publishes the line, with the status sent, when the body fails after the prelude', async () => {
    const entries: MetricsEntry[] = [];
    const app = new RestApplication({ logger: silentLogger });
    app.get('/fails', ({ metrics }) => {
      metrics.addMetric('Started', 'Count', 1);
      async function* rows() {
        yield 'a';
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('db dropped');
      }
      return new Response(200, rows(), { headers: { 'content-type': 'text/plain' } });
    });
    const adapter = new CloudGatewayAdapter(app, {
      logger: silentLogger,
      metricsPublisher: { publish: (entry) => void entries.push(entry) },
    });
    const { stream, done } = invoke(
      adapter.streamHandler,
      v2Event({ method: 'GET', path: '/fails' }, { functionUrl: true }),
    );
    const { error } = await done;
    expect(error).toBeInstanceOf(Error);
    expect(stream.parsed().prelude.statusCode).toBe(200);
    expect(entries).toHaveLength(1);
    expect(entries[0]?.properties.statusCode).toBe(200);
    expect(entries[0]?.metrics.map((metric) => metric.name)).toContain('Started');
  });
});

describe('the injectable metrics where none are recorded', () => {
  it('checks each call as on Lambda, so a mistake shows in development too', async () => {
    const mistakes: Array<[string, (metrics: MetricsRecorder) => void]> = [
      // @ts-expect-error: the unit is typed; JavaScript callers are checked at run time.
      ['an unknown unit', (metrics) => metrics.addMetric('Orders', 'Bogus', 1)],
      ['a reserved name', (metrics) => metrics.addMetric('Latency', 'Milliseconds', 1)],
      ['no finite number', (metrics) => metrics.addMetric('Orders', 'Count', Number.NaN)],
      ['a value CloudWatch refuses', (metrics) => metrics.addMetric('Orders', 'Count', 1e200)],
      [
        'a tiny value CloudWatch refuses',
        (metrics) => metrics.addMetric('Orders', 'Count', 1e-200),
      ],
      ['a metric name with a tab', (metrics) => metrics.addMetric('a\tb', 'Count', 1)],
      ['a metric name of spaces', (metrics) => metrics.addMetric('   ', 'Count', 1)],
      ['a dimension with a control character', (metrics) => metrics.addDimension('tier', 'a\nb')],
      ['a property JSON cannot encode', (metrics) => metrics.addProperty('id', 10n)],
    ];
    for (const [what, mistake] of mistakes) {
      const failures: unknown[] = [];
      const app = new RestApplication({
        logger: { ...silentLogger, error: (_message, fields) => void failures.push(fields?.error) },
      });
      app.get('/', ({ metrics }) => {
        mistake(metrics);
        return 'recorded';
      });
      // In process, and on Lambda with metrics off: no recorder, the same check.
      const inProcess = await app.request('/');
      expect(inProcess.statusCode, what).toBe(500);
      expect(failures[0], what).toBeInstanceOf(TypeError);
      const adapter = new CloudGatewayAdapter(app, { enableMetrics: false });
      const result = await adapter.handleEvent(v2Event({ method: 'GET', path: '/' }));
      expect(result.statusCode, what).toBe(500);
    }
    const app = new RestApplication({ logger: silentLogger });
    app.get('/', ({ metrics }) => {
      metrics.addMetric('Orders', 'Count', 1);
      metrics.addDimension('tier', 'gold');
      metrics.addProperty('orderId', 'o-1');
      return 'recorded';
    });
    expect((await app.request('/')).body).toBe('recorded');
  });
});
