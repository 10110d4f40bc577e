/**
 * File bodies through the buffered Lambda handler when the file changes between the lookup
 * (the stat that decided the response's length and validators) and the read. The whole body is
 * read into the result, so it must hold exactly the bytes the headers describe: the first
 * `size` bytes of a file that grew, and, when it shrank, the application's 500 for a body that
 * failed while read (docs/aws-lambda.md) rather than a short body passed off as the file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../src/adapters/aws/index.js';
import { Response, RestApplication } from '../../src/index.js';
import { StaticRouter } from '../../src/static/index.js';
import { lambdaContext, readV2Result, v2Event } from './aws/fixtures.js';
import { FILE_CHANGES, patternBytes } from './file-changes.js';
import { memoryLogger } from './node/helpers.js';

const FILE_SIZE = 300_000;

const { logger, lines } = memoryLogger();
let directory: string;
let adapter: CloudGatewayAdapter;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'restmachine-file-body-lambda-'));
  const app = new RestApplication({ logger });
  app.get('/file/{name}', ({ name }) => Response.file(join(directory, name)));
  app.mount('/static', new StaticRouter(directory, { cache: false }));
  // The change happens once the response is decided, before the adapter reads the file.
  app.onResponse(({ request }) => {
    const change = request.headers.get('x-change');
    if (change !== undefined) FILE_CHANGES[change]?.(join(directory, basename(request.path)));
  });
  adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

function invoke(path: string, headers: Record<string, string>) {
  writeFileSync(join(directory, basename(path)), patternBytes(FILE_SIZE));
  return adapter.handleEvent(v2Event({ method: 'GET', path, headers }), lambdaContext());
}

describe('a file that changes after its lookup, through the buffered Lambda handler', () => {
  it.each([
    ['a handler', '/file/grow-handler.bin'],
    ['a static mount', '/static/grow-static.bin'],
  ])('returns only the declared bytes of a grown file from %s', async (_, path) => {
    const result = readV2Result(await invoke(path, { 'x-change': 'grow' }));
    expect(result.status).toBe(200);
    expect(result.headers.get('content-length')).toBe(String(FILE_SIZE));
    expect(Buffer.from(result.body).equals(patternBytes(FILE_SIZE))).toBe(true);
  });

  it.each([
    ['whole', {}],
    ['ranged', { range: 'bytes=100-199999' }],
  ])(
    'answers a file that shrank with the 500 of a failed body, never a short one (%s)',
    async (kind, headers) => {
      const result = readV2Result(
        await invoke(`/file/shrink-${kind}.bin`, { 'x-change': 'shrink', ...headers }),
      );
      expect(result.status).toBe(500);
      expect(JSON.parse(Buffer.from(result.body).toString())).toMatchObject({
        error: 'Internal Server Error',
      });
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'error',
          fields: expect.objectContaining({
            error: expect.objectContaining({
              message: expect.stringMatching(
                /ended after 10 of the \d+ bytes its response declared/,
              ),
            }),
          }),
        }),
      );
    },
  );
});

describe('a file removed after its lookup, through the buffered Lambda handler', () => {
  it('answers 404 through the error path, unlogged, never an empty 200', async () => {
    const app = new RestApplication({ logger });
    app.defaultHeaders({ 'X-Content-Type-Options': 'nosniff' });
    app.errorHandler(404, () => ({ custom: 'not here' }));
    app.get('/file/{name}', ({ name }) => Response.file(join(directory, name)));
    app.onResponse(({ request }) => {
      if (request.headers.get('x-change') === 'remove') {
        // force: the hooks also see the 404 that answers the removal.
        rmSync(join(directory, basename(request.path)), { force: true });
      }
    });
    const removing = new CloudGatewayAdapter(app, { metricsPublisher: null });
    writeFileSync(join(directory, 'removed.bin'), patternBytes(FILE_SIZE));
    const errorsBefore = lines.filter((line) => line.level === 'error').length;
    const result = readV2Result(
      await removing.handleEvent(
        v2Event({ method: 'GET', path: '/file/removed.bin', headers: { 'x-change': 'remove' } }),
        lambdaContext(),
      ),
    );
    expect(result.status).toBe(404);
    expect(result.headers.get('x-content-type-options')).toBe('nosniff');
    expect(JSON.parse(Buffer.from(result.body).toString())).toEqual({ custom: 'not here' });
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(errorsBefore);
  });
});
