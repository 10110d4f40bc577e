/**
 * The example application: in-process through `app.request()`, over HTTP through `serve()`,
 * and as the process `npm start` runs.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../examples/app/app.js';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { silentLogger } from '../../src/index.js';
import { bodyBytes } from '../../src/response.js';

const main = fileURLToPath(new URL('../../examples/app/main.ts', import.meta.url));
const decoder = new TextDecoder();

async function json(response: Awaited<ReturnType<ReturnType<typeof createApp>['request']>>) {
  return JSON.parse(decoder.decode(await bodyBytes(response)));
}

describe('in-process', () => {
  const app = createApp({ logger: silentLogger });

  it('answers a conditional GET with 304 and refuses a stale If-Match with 412', async () => {
    const first = await app.request('/api/v1/bookmarks/2');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"v\d+"$/);
    const cached = await app.request('/api/v1/bookmarks/2', { headers: { 'If-None-Match': etag } });
    expect(cached.statusCode).toBe(304);
    const patched = await app.request('/api/v1/bookmarks/2', {
      method: 'PATCH',
      json: { title: 'Renamed' },
      headers: { 'If-Match': etag },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.headers.get('etag')).not.toBe(etag);
    const stale = await app.request('/api/v1/bookmarks/2', {
      method: 'PATCH',
      json: { title: 'Lost update' },
      headers: { 'If-Match': etag },
    });
    expect(stale.statusCode).toBe(412);
    expect((await json(await app.request('/api/v1/bookmarks/2'))).title).toBe('Renamed');
  });

  it('lists the example bookmarks and filters them by tag and text', async () => {
    const all = await app.request('/api/v1/bookmarks');
    expect(all.statusCode).toBe(200);
    expect((await json(all)).map((b: { id: string }) => b.id)).toEqual(['1', '2']);
    const tagged = await json(await app.request('/api/v1/bookmarks?tag=http'));
    expect(tagged.map((b: { id: string }) => b.id)).toEqual(['2']);
    const found = await json(await app.request('/api/v1/bookmarks?q=EXAMPLE'));
    expect(found.map((b: { id: string }) => b.id)).toEqual(['1']);
  });

  it('creates a bookmark with 201 and a Location, then serves it', async () => {
    const created = await app.request('/api/v1/bookmarks', {
      method: 'POST',
      json: { url: 'https://nodejs.org/', title: '  Node.js ', tags: ['js', 'js'] },
    });
    expect(created.statusCode).toBe(201);
    const body = await json(created);
    expect(body).toMatchObject({ url: 'https://nodejs.org/', title: 'Node.js', tags: ['js'] });
    expect(created.headers.get('location')).toBe(`/api/v1/bookmarks/${body.id}`);
    const fetched = await app.request(`/api/v1/bookmarks/${body.id}`);
    expect(await json(fetched)).toEqual(body);
  });

  it('answers 422 listing every invalid field', async () => {
    const response = await app.request('/api/v1/bookmarks', {
      method: 'POST',
      json: { url: 'javascript:alert(1)', title: '', tags: ['Not A Tag'] },
    });
    expect(response.statusCode).toBe(422);
    const body = await json(response);
    expect(body.details.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'tags[0]',
      'title',
      'url',
    ]);
    const badQuery = await app.request('/api/v1/bookmarks?tag=Bad%20Tag');
    expect(badQuery.statusCode).toBe(422);
    const emptyPatch = await app.request('/api/v1/bookmarks/1', { method: 'PATCH', json: {} });
    expect(emptyPatch.statusCode).toBe(422);
  });

  it('answers 404 for an unknown bookmark, whatever the method', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const response = await app.request('/api/v1/bookmarks/999', {
        method,
        json: method === 'PATCH' ? { title: 'x' } : undefined,
      });
      expect(response.statusCode).toBe(404);
    }
  });

  it('changes only the fields a PATCH sends', async () => {
    const before = await json(await app.request('/api/v1/bookmarks/2'));
    const patched = await json(
      await app.request('/api/v1/bookmarks/2', { method: 'PATCH', json: { title: 'HTTP' } }),
    );
    expect(patched).toMatchObject({ title: 'HTTP', tags: before.tags, url: before.url });
  });

  it('updates and deletes', async () => {
    const patched = await app.request('/api/v1/bookmarks/1', {
      method: 'PATCH',
      json: { tags: ['changed'] },
    });
    expect(await json(patched)).toMatchObject({ id: '1', tags: ['changed'] });
    const removed = await app.request('/api/v1/bookmarks/1', { method: 'DELETE' });
    expect(removed.statusCode).toBe(204);
    expect((await app.request('/api/v1/bookmarks/1')).statusCode).toBe(404);
  });

  it('negotiates JSON, HTML (escaped) and plain text', async () => {
    const created = await json(
      await app.request('/api/v1/bookmarks', {
        method: 'POST',
        json: { url: 'https://example.org/?a=1&b=2', title: '<script>alert(1)</script>' },
      }),
    );
    const html = await app.request(`/api/v1/bookmarks/${created.id}`, {
      headers: { accept: 'text/html' },
    });
    expect(html.headers.get('content-type')).toBe('text/html');
    const page = decoder.decode(await bodyBytes(html));
    expect(page).toContain('&lt;script&gt;');
    expect(page).not.toContain('<script>');
    expect(page).toContain('href="https://example.org/?a=1&amp;b=2"');
    const text = await app.request('/api/v1/bookmarks', { headers: { accept: 'text/plain' } });
    expect(decoder.decode(await bodyBytes(text))).toContain(`${created.id}\t<script>`);
    const none = await app.request('/api/v1/bookmarks', { headers: { accept: 'image/png' } });
    expect(none.statusCode).toBe(406);
  });

  it('counts tags', async () => {
    const fresh = createApp({ logger: silentLogger });
    expect(await json(await fresh.request('/api/v1/tags'))).toEqual([
      { tag: 'example', count: 1 },
      { tag: 'http', count: 1 },
      { tag: 'reference', count: 1 },
    ]);
  });
});

describe('seed files', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'restmachine-bookmarks-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('starts with the bookmarks of a seed file', async () => {
    const seedFile = join(directory, 'seed.json');
    await writeFile(seedFile, JSON.stringify([{ url: 'https://a.example/', title: 'A' }]));
    const app = createApp({ seedFile, logger: silentLogger });
    await app.startup();
    expect(await json(await app.request('/api/v1/bookmarks'))).toMatchObject([
      { id: '1', title: 'A', tags: [] },
    ]);
  });

  it('refuses to start with an invalid seed file, saying where', async () => {
    const seedFile = join(directory, 'bad.json');
    await writeFile(seedFile, JSON.stringify([{ url: 'https://a.example/', title: 7 }]));
    await expect(createApp({ seedFile, logger: silentLogger }).startup()).rejects.toThrow(
      /invalid at \[0\.title\]/,
    );
  });
});

describe('over HTTP', () => {
  let server: ServeHandle;
  beforeAll(async () => {
    server = await serve(createApp({ logger: silentLogger }), {
      port: 0,
      handleSignals: false,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves the API at /api/v1 with HEAD and OPTIONS', async () => {
    const list = await fetch(`${server.url}/api/v1/bookmarks`);
    expect(list.status).toBe(200);
    expect(await list.json()).toHaveLength(2);
    const head = await fetch(`${server.url}/api/v1/bookmarks/1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    const options = await fetch(`${server.url}/api/v1/bookmarks/1`, { method: 'OPTIONS' });
    expect(options.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
    const index = await fetch(`${server.url}/api`);
    expect(await index.json()).toMatchObject({ name: 'Bookmarks API' });
    const page = await fetch(`${server.url}/`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<html');
  });
});

describe('the process npm start runs', () => {
  function run(env: Record<string, string>) {
    const child = spawn(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { child, exited, stdout: () => stdout, stderr: () => stderr };
  }

  it('prints its URL, serves, and stops cleanly on Ctrl-C', async () => {
    const app = run({ PORT: '0' });
    try {
      while (!/listening on (\S+)/.test(app.stdout())) {
        if (app.child.exitCode !== null) throw new Error(`exited early: ${app.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = (/listening on (\S+)/.exec(app.stdout()) as RegExpExecArray)[1] as string;
      expect((await fetch(`${url}/api/v1/bookmarks`)).status).toBe(200);
      app.child.kill('SIGINT');
      expect(await app.exited).toBe(0);
      expect(app.stdout()).toContain('Bookmarks store closed');
    } finally {
      if (app.child.exitCode === null) app.child.kill('SIGKILL');
    }
  }, 20_000);

  it('exits non-zero with the message when startup fails', async () => {
    const app = run({ PORT: '0', BOOKMARKS_SEED: '/nonexistent/seed.json' });
    expect(await app.exited).toBe(1);
    expect(app.stderr()).toContain(
      'The bookmarks API could not start: Cannot read the seed file /nonexistent/seed.json',
    );
  }, 20_000);
});
