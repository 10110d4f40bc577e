/**
 * The example application's OpenAPI document as third parties use it, from the running server
 * (real HTTP on 127.0.0.1): it validates against the official OpenAPI 3.1 schema;
 * openapi-typescript generates types from it and an openapi-fetch client, type-checked against
 * them, calls the server; and Swagger UI, served by the application itself, lists the example's
 * operations in headless Chromium (skipped with a reason outside CI when Chromium is missing).
 */
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import type { Browser } from 'playwright-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app/app.js';
import { API_V1, type BookmarksApi } from '../../examples/app/routes.js';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { createClient } from '../../src/client/index.js';
import { silentLogger } from '../../src/index.js';
import { launchChromium, needChromium } from '../support/chromium.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

let server: ServeHandle;
let project: string;

beforeAll(async () => {
  // validateResponses: every answer below is also checked against its returns() declaration.
  server = await serve(createApp({ logger: silentLogger, validateResponses: true }), {
    port: 0,
    host: '127.0.0.1',
    handleSignals: false,
  });
  project = await mkdtemp(join(tmpdir(), 'restmachine-openapi-consumer-'));
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (project !== undefined) await rm(project, { recursive: true, force: true });
});

describe('the example application’s served document', () => {
  it('is valid OpenAPI 3.1, with its references resolving, and documents the API only', async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      paths: Record<string, unknown>;
      tags: Array<{ name: string }>;
    };
    const validator = new Validator();
    const result = await validator.validate(document as Parameters<Validator['validate']>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
    expect(Object.keys(document.paths)).toEqual([
      '/api',
      '/api/v1/bookmarks',
      '/api/v1/bookmarks/{id}',
      '/api/v1/tags',
    ]);
    expect(document.tags.map((tag) => tag.name)).toEqual(['bookmarks', 'index']);
  });
});

/** The consumer: an openapi-fetch client over the generated `paths`, written as a user would. */
const CONSUMER = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function run(baseUrl: string) {
  // The document lists text/plain beside JSON (the example provides it): pick JSON.
  const client = createClient<paths, 'application/json'>({ baseUrl });
  const created = await client.POST('/api/v1/bookmarks', {
    body: { url: 'https://openapi-ts.dev/', title: 'openapi-typescript', tags: ['openapi'] },
  });
  if (created.data === undefined) throw new Error(\`POST failed: \${created.response.status}\`);
  const id: string = created.data.id;
  const one = await client.GET('/api/v1/bookmarks/{id}', { params: { path: { id } } });
  const list = await client.GET('/api/v1/bookmarks', { params: { query: { tag: 'openapi' } } });
  const titles: string[] = (list.data ?? []).map((bookmark) => bookmark.title);
  const changed = await client.PATCH('/api/v1/bookmarks/{id}', {
    params: { path: { id } },
    body: { title: 'openapi-typescript 7' },
  });
  const invalid = await client.POST('/api/v1/bookmarks', {
    body: { url: 'not a url', title: '', tags: [] },
  });
  const removed = await client.DELETE('/api/v1/bookmarks/{id}', { params: { path: { id } } });
  const gone = await client.GET('/api/v1/bookmarks/{id}', { params: { path: { id } } });
  return {
    created: created.response.status,
    version: one.data?.version,
    titles,
    changed: changed.data?.title,
    invalid: invalid.response.status,
    removed: removed.response.status,
    gone: gone.response.status,
  };
}
`;

/** A call the generated types must refuse: the test's proof that the types are checked. */
const MISTAKE = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
export const wrong = client.GET('/api/v1/bookmarks/{id}', { params: { path: { ident: '1' } } });
`;

function compile(files: string[], emit: boolean): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: !emit,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    skipLibCheck: true,
  });
  const diagnostics = [...ts.getPreEmitDiagnostics(program)];
  if (emit && diagnostics.length === 0) program.emit();
  return diagnostics.map((diagnostic) =>
    ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  );
}

describe('openapi-typescript and openapi-fetch against the running example', () => {
  it('generates types from the served document; a client checked against them calls the server', async () => {
    const ast = await openapiTS(new URL(`${server.url}/openapi.json`));
    const types = astToString(ast);
    expect(types).toContain('"/api/v1/bookmarks/{id}"');
    // A temporary project that finds openapi-fetch where this repository installed it.
    await writeFile(join(project, 'package.json'), '{ "type": "module" }');
    await symlink(join(root, 'node_modules'), join(project, 'node_modules'), 'dir');
    await writeFile(join(project, 'schema.d.ts'), types);
    await writeFile(join(project, 'client.ts'), CONSUMER);
    await writeFile(join(project, 'mistake.ts'), MISTAKE);

    expect(compile([join(project, 'client.ts')], true)).toEqual([]);
    const mistakes = compile([join(project, 'mistake.ts')], false);
    expect(mistakes.join('\n')).toMatch(/ident/);

    const compiled = join(project, 'client.js');
    expect(await readFile(compiled, 'utf8')).toContain('openapi-fetch');
    const consumer = (await import(pathToFileURL(compiled).href)) as {
      run(baseUrl: string): Promise<Record<string, unknown>>;
    };
    expect(await consumer.run(server.url)).toEqual({
      created: 201,
      version: 1,
      titles: ['openapi-typescript'],
      changed: 'openapi-typescript 7',
      invalid: 422,
      removed: 204,
      gone: 404,
    });
  }, 60_000);
});

describe('restmachine’s own typed client against the running example', () => {
  it('calls the routes withRoutes() registered, typed from them', async () => {
    const client = createClient<BookmarksApi>({ baseUrl: `${server.url}${API_V1}` });
    const created = await client.post('/bookmarks', {
      json: { url: 'https://restmachine.example/', title: 'restmachine', tags: ['typed'] },
    });
    expect(created.status).toBe(201);
    if (created.status !== 201) return;
    const id = created.data.id;
    expect(created.headers.get('location')).toBe(`${API_V1}/bookmarks/${id}`);
    const listed = await client.get('/bookmarks', { query: { tag: 'typed' } });
    expect(listed.status === 200 && listed.data.map((bookmark) => bookmark.title)).toEqual([
      'restmachine',
    ]);
    const changed = await client.patch('/bookmarks/{id}', {
      params: { id },
      json: { title: 'restmachine, typed' },
      headers: { 'if-match': '"v1"' },
    });
    expect(changed.status === 200 && changed.data.version).toBe(2);
    const stale = await client.delete('/bookmarks/{id}', {
      params: { id },
      headers: { 'if-match': '"v1"' },
    });
    expect(stale.status).toBe(412);
    const invalid = await client.post('/bookmarks', {
      // @ts-expect-error: the validator's input type wants a title
      json: { url: 'https://restmachine.example/' },
    });
    expect(invalid.status).toBe(422);
    expect((await client.delete('/bookmarks/{id}', { params: { id } })).status).toBe(204);
    const gone = await client.get('/bookmarks/{id}', { params: { id } });
    expect(gone.status).toBe(404);
  });
});

describe('the API reference page in headless Chromium', () => {
  let browser: Browser | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('lists the example’s operations, every asset from the application itself', async (context) => {
    const page = await needChromium(context, browser).newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) {
        elsewhere.push(request.url());
      }
    });
    try {
      const response = await page.goto(`${server.url}/docs`);
      expect(response?.status()).toBe(200);
      await page.waitForSelector('.opblock', { timeout: 20_000 });
      const operations = await page.evaluate(
        `[...document.querySelectorAll('.opblock')].map((block) =>
          block.querySelector('.opblock-summary-method').textContent + ' ' +
          block.querySelector('.opblock-summary-path').getAttribute('data-path'))`,
      );
      expect(operations).toEqual(
        expect.arrayContaining([
          'GET /api',
          'GET /api/v1/bookmarks',
          'POST /api/v1/bookmarks',
          'GET /api/v1/bookmarks/{id}',
          'PATCH /api/v1/bookmarks/{id}',
          'DELETE /api/v1/bookmarks/{id}',
          'GET /api/v1/tags',
        ]),
      );
      expect((operations as string[]).some((operation) => operation.includes('/docs'))).toBe(false);
      expect(await page.locator('.info .title').textContent()).toContain('Bookmarks API');
      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
