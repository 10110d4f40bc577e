/**
 * The adapters' options objects refuse a name they do not know with `INVALID_OPTION`, naming
 * the options there are (docs/application.md, "Errors"): `serve()`, `serveCluster()`,
 * `new NodeAdapter()`, `new CloudGatewayAdapter()` and `new EmfMetricsPublisher()`. The options they know still work, and
 * `serve()` and `serveCluster()` still hand theirs on to what they build.
 */
import { describe, expect, it } from 'vitest';
import { CloudGatewayAdapter, EmfMetricsPublisher } from '../../src/adapters/aws/index.js';
import { NodeAdapter, serve, serveCluster } from '../../src/adapters/node/index.js';
import { RestApplication, silentLogger } from '../../src/index.js';
import { readV1Result, restEvent } from './aws/fixtures.js';
import { launch, listeningUrl, pidFrom } from './node/cluster-process.js';
import { send } from './node/helpers.js';

// Built from a variable, as options loaded from configuration are.
const options = (value: object): never => value as never;

function invalidOption(message: string | RegExp) {
  return expect.objectContaining({
    name: 'SetupError',
    code: 'INVALID_OPTION',
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });
}

function echoApp(): RestApplication {
  const app = new RestApplication({ logger: silentLogger });
  app.get('/echo', ({ request }) => ({
    remoteAddress: request.remoteAddress,
    protocol: request.protocol,
  }));
  return app;
}

const SERVE_NAMES =
  'port, host, tls, handleSignals, shutdownTimeout, headersTimeout, requestTimeout, keepAliveTimeout, trustProxy';

describe('new NodeAdapter()', () => {
  it('refuses a misspelt option', () => {
    expect(() => new NodeAdapter(echoApp(), options({ trustproxy: 1 }))).toThrow(
      invalidOption('new NodeAdapter(): unknown option "trustproxy"; the options are trustProxy'),
    );
  });

  it('still takes trustProxy', () => {
    expect(new NodeAdapter(echoApp(), { trustProxy: 2 }).trustProxy).toBe(2);
    expect(new NodeAdapter(echoApp()).trustProxy).toBe(false);
  });
});

describe('serve()', () => {
  it('refuses a misspelt option before startup runs', async () => {
    const app = echoApp();
    let started = false;
    app.onStartup(() => {
      started = true;
    });
    await expect(serve(app, options({ prot: 0, handleSignals: false }))).rejects.toEqual(
      invalidOption(`serve(): unknown option "prot"; the options are ${SERVE_NAMES}`),
    );
    await expect(serve(app, options({ trustproxy: 1, handleSignals: false }))).rejects.toEqual(
      invalidOption(/^serve\(\): unknown option "trustproxy"; the options are .*trustProxy$/),
    );
    expect(started).toBe(false);
  });

  it('still serves with every option it knows, the adapter getting trustProxy', async () => {
    const handle = await serve(echoApp(), {
      port: 0,
      host: '127.0.0.1',
      handleSignals: false,
      shutdownTimeout: 1_000,
      headersTimeout: 5_000,
      requestTimeout: 10_000,
      keepAliveTimeout: 1_000,
      trustProxy: 1,
    });
    try {
      expect(handle.server.keepAliveTimeout).toBe(1_000);
      const response = await send(handle.port, {
        path: '/echo',
        headers: { 'X-Forwarded-For': '192.0.2.44', 'X-Forwarded-Proto': 'https' },
      });
      expect(JSON.parse(response.body.toString())).toEqual({
        remoteAddress: '192.0.2.44',
        protocol: 'https',
      });
    } finally {
      await handle.close();
    }
  });
});

describe('serveCluster()', () => {
  it('refuses a misspelt option before forking anything', async () => {
    await expect(serveCluster(echoApp, options({ worker: 2 }))).rejects.toEqual(
      invalidOption(
        `serveCluster(): unknown option "worker"; the options are workers, ${SERVE_NAMES}`,
      ),
    );
  });

  it('still takes workers, which its workers do not hand on to serve()', async () => {
    // The fixture serves with { port: 0, host, workers: 2 }: each worker calls serve() with
    // the rest, which would refuse `workers`.
    const { child, output: collected } = launch();
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const url = await listeningUrl(child, collected);
      const pid = await pidFrom(url);
      expect(pid).not.toBe(child.pid);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(collected()).not.toContain('failed');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});

describe('new CloudGatewayAdapter()', () => {
  it('refuses a misspelt option', () => {
    expect(() => new CloudGatewayAdapter(echoApp(), options({ basepath: '/api' }))).toThrow(
      invalidOption(
        'new CloudGatewayAdapter(): unknown option "basepath"; the options are metricsPublisher, enableMetrics, namespace, serviceName, metricsResolution, basePath, logger',
      ),
    );
    expect(() => new CloudGatewayAdapter(echoApp(), options({ enableMetric: false }))).toThrow(
      invalidOption(/^new CloudGatewayAdapter\(\): unknown option "enableMetric"/),
    );
  });

  it('still takes every option it knows', async () => {
    const lines: unknown[] = [];
    const adapter = new CloudGatewayAdapter(echoApp(), {
      metricsPublisher: { publish: (entry) => void lines.push(entry) },
      enableMetrics: true,
      namespace: 'Shop',
      serviceName: 'orders',
      metricsResolution: 60,
      basePath: '/api',
      logger: silentLogger,
    });
    const result = readV1Result(
      await adapter.handleEvent(restEvent({ method: 'GET', path: '/api/echo' })),
    );
    expect(result.status).toBe(200);
    expect(lines).toHaveLength(1);
  });
});

describe('new EmfMetricsPublisher()', () => {
  it('refuses a misspelt option and takes write', async () => {
    expect(() => new EmfMetricsPublisher(options({ writer: () => undefined }))).toThrow(
      invalidOption('new EmfMetricsPublisher(): unknown option "writer"; the options are write'),
    );
    const lines: string[] = [];
    const adapter = new CloudGatewayAdapter(echoApp(), {
      metricsPublisher: new EmfMetricsPublisher({ write: (line) => lines.push(line) }),
    });
    await adapter.handleEvent(restEvent({ method: 'GET', path: '/echo' }));
    expect(JSON.parse(lines[0] as string)).toMatchObject({ Count: 1 });
  });
});
