/**
 * File bodies through `streamHandler` when the file changes between the lookup (the stat that
 * decided the response's length and validators) and the read: the file is opened before the
 * prelude, so one removed in between is a whole 404 through the application's error path; then
 * exactly the declared bytes go out: a file that grew is cut at its looked-up size, one that
 * shrank fails the invocation after the prelude rather than passing a short body off as whole.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { Response, RestApplication } from '../../../src/index.js';
import { StaticRouter } from '../../../src/static/index.js';
import { FILE_CHANGES, patternBytes } from '../file-changes.js';
import { captureLogger, v2Event } from './fixtures.js';
import { installRuntime, invoke } from './stream-runtime.js';

const FILE_SIZE = 300_000;

const { logger, lines } = captureLogger();
let directory: string;
let adapter: CloudGatewayAdapter;
let uninstall: () => void;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'restmachine-stream-files-'));
  const app = new RestApplication({ logger });
  app.defaultHeaders({ 'X-Content-Type-Options': 'nosniff' });
  app.errorHandler(404, () => ({ custom: 'not here' }));
  app.get('/file/{name}', ({ name }) => Response.file(join(directory, name)));
  app.mount('/static', new StaticRouter(directory, { cache: false }));
  // The change happens once the response is decided, before the adapter opens the file.
  app.onResponse(({ request }) => {
    const change = request.headers.get('x-change');
    if (change !== undefined) FILE_CHANGES[change]?.(join(directory, basename(request.path)));
  });
  adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

beforeEach(() => {
  uninstall = installRuntime();
});
afterEach(() => uninstall());

function call(path: string, headers: Record<string, string>) {
  writeFileSync(join(directory, basename(path)), patternBytes(FILE_SIZE));
  return invoke(
    adapter.streamHandler,
    v2Event({ method: 'GET', path, headers }, { functionUrl: true }),
  );
}

describe('a file that changes after its lookup, through streamHandler', () => {
  it.each([
    ['a handler', '/file/grow-handler.bin'],
    ['a static mount', '/static/grow-static.bin'],
  ])('sends only the declared bytes of a grown file from %s', async (_, path) => {
    const { stream, done } = call(path, { 'x-change': 'grow' });
    expect((await done).error).toBeUndefined();
    const { prelude, body } = stream.parsed();
    expect(prelude.statusCode).toBe(200);
    expect(prelude.headers['Content-Length']).toBe(String(FILE_SIZE));
    expect(body.equals(patternBytes(FILE_SIZE))).toBe(true);
  });

  it('sends only the declared range of a grown file', async () => {
    const { stream, done } = call('/file/grow-range.bin', {
      'x-change': 'grow',
      range: `bytes=${FILE_SIZE - 100}-`,
    });
    expect((await done).error).toBeUndefined();
    const { prelude, body } = stream.parsed();
    expect(prelude.statusCode).toBe(206);
    expect(body.equals(patternBytes(FILE_SIZE).subarray(FILE_SIZE - 100))).toBe(true);
  });

  it('fails the invocation after the prelude for a file that shrank, logged', async () => {
    const { stream, done } = call('/file/shrink.bin', { 'x-change': 'shrink' });
    const { error } = await done;
    expect((error as Error).message).toMatch(
      /ended after 10 of the 300000 bytes its response declared/,
    );
    expect(stream.parsed().prelude.statusCode).toBe(200);
    expect(stream.parsed().body.length).toBe(10);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: expect.stringMatching(/after the status/),
      }),
    );
  });

  it.each([
    ['a handler', '/file/removed-handler.bin'],
    ['a static mount', '/static/removed-static.bin'],
  ])(
    'answers a file removed from %s with a whole 404 through the error path, unlogged',
    async (_, path) => {
      const errorsBefore = lines.filter((line) => line.level === 'error').length;
      const { stream, done } = call(path, { 'x-change': 'remove' });
      expect((await done).error).toBeUndefined();
      const { prelude, body } = stream.parsed();
      expect(prelude.statusCode).toBe(404);
      expect(prelude.headers['X-Content-Type-Options']).toBe('nosniff');
      expect(JSON.parse(body.toString())).toEqual({ custom: 'not here' });
      expect(stream.writableFinished).toBe(true);
      expect(lines.filter((line) => line.level === 'error')).toHaveLength(errorsBefore);
    },
  );
});
