/**
 * A bounded load test: autocannon (in its own process) drives 50 connections for 5 seconds at
 * a simple route. Every response must be a 2xx; no errors, no timeouts. It checks behaviour
 * under load, not speed: the numbers are printed, never asserted.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ServeHandle } from '../../../src/adapters/node/index.js';
import { RestApplication, silentLogger } from '../../../src/index.js';
import { start } from './helpers.js';

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  requests: { average: number; total: number };
}

let server: ServeHandle;

beforeAll(async () => {
  const app = new RestApplication({ logger: silentLogger });
  app.get('/', () => ({ hello: 'world' }));
  server = await start(app);
});

afterAll(async () => {
  await server.close();
});

it('serves 50 connections for 5 s with zero errors and zero non-2xx', async () => {
  const cli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const child = spawn(
    process.execPath,
    [cli, '--json', '--connections', '50', '--duration', '5', `${server.url}/`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  const result = JSON.parse(output) as AutocannonResult;
  console.info(
    `autocannon: ${result.requests.total} requests, ${Math.round(result.requests.average)} req/s ` +
      `average, ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
  );
  expect(result.errors).toBe(0);
  expect(result.timeouts).toBe(0);
  expect(result.non2xx).toBe(0);
  expect(result['2xx']).toBeGreaterThan(0);
  expect(result['2xx']).toBe(result.requests.total);
}, 30_000);
