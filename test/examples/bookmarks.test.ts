/**
 * The example application on both of its databases (the embedded PGlite always, a real
 * PostgreSQL server when the harness can start one): in-process through `app.request()`, over
 * HTTP through `serve()`, and as the process `npm start` runs.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BookmarksApp, createApp } from '../../examples/app/app.js';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { silentLogger } from '../../src/index.js';
import { bodyBytes } from '../../src/response.js';
import { type PostgresTestServer, startPostgres } from './postgres-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const decoder = new TextDecoder();

async function json(response: Awaited<ReturnType<ReturnType<typeof createApp>['request']>>) {
  return JSON.parse(decoder.decode(await bodyBytes(response)));
}

/** The example on each database: the embedded one always, PostgreSQL from the harness. */
interface Backend {
  name: string;
  /** The database URL for a new, empty database; undefined for the embedded one. */
  database(): Promise<string | undefined>;
  /** Why this backend cannot run here (the tests skip, saying it), or undefined. */
  unavailable(): string | undefined;
}

let postgres: PostgresTestServer | undefined;
let postgresMissing: string | undefined;
let databases = 0;

beforeAll(async () => {
  const started = await startPostgres();
  if (typeof started === 'string') postgresMissing = started;
  else postgres = started;
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
});

const backends: Backend[] = [
  { name: 'embedded (PGlite)', database: async () => undefined, unavailable: () => undefined },
  {
    name: 'PostgreSQL',
    database: () => (postgres as PostgresTestServer).createDatabase(`bookmarks_${++databases}`),
    unavailable: () => postgresMissing,
  },
];

describe.each(backends)('in-process on $name', (backend) => {
  let app: BookmarksApp;

  beforeAll(async () => {
    if (backend.unavailable() !== undefined) return;
    app = createApp({ databaseUrl: await backend.database(), logger: silentLogger });
    await app.startup();
  }, 120_000);
  afterAll(async () => {
    await app?.shutdown();
  });
  beforeEach((context) => {
    const reason = backend.unavailable();
    if (reason !== undefined) {
      console.warn(`Skipped: ${reason}`);
      context.skip(reason);
    }
  });

  it('starts a new database with the migrations and the two examples', async () => {
    expect(await json(await app.request('/api/v1/tags'))).toEqual([
      { tag: 'example', count: 1 },
      { tag: 'http', count: 1 },
      { tag: 'reference', count: 1 },
    ]);
  });

  it('answers a conditional GET with 304 and refuses a stale If-Match with 412', async () => {
    const first = await app.request('/api/v1/bookmarks/2');
    const etag = first.headers.get('etag') as string;
    expect(etag).toBe('"v1"');
    const cached = await app.request('/api/v1/bookmarks/2', { headers: { 'If-None-Match': etag } });
    expect(cached.statusCode).toBe(304);
    const patched = await app.request('/api/v1/bookmarks/2', {
      method: 'PATCH',
      json: { title: 'Renamed' },
      headers: { 'If-Match': etag },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.headers.get('etag')).toBe('"v2"');
    const stale = await app.request('/api/v1/bookmarks/2', {
      method: 'PATCH',
      json: { title: 'Lost update' },
      headers: { 'If-Match': etag },
    });
    expect(stale.statusCode).toBe(412);
    const staleDelete = await app.request('/api/v1/bookmarks/2', {
      method: 'DELETE',
      headers: { 'If-Match': etag },
    });
    expect(staleDelete.statusCode).toBe(412);
    const now = await json(await app.request('/api/v1/bookmarks/2'));
    expect(now).toMatchObject({ title: 'Renamed', version: 2 });
  });

  it('gives the page and the text of a bookmark tags of their own', async () => {
    const tagOf = async (accept: string) =>
      (await app.request('/api/v1/bookmarks/1', { headers: { Accept: accept } })).headers.get(
        'etag',
      );
    const [jsonTag, htmlTag, textTag] = [
      await tagOf('application/json'),
      await tagOf('text/html'),
      await tagOf('text/plain'),
    ];
    expect(new Set([jsonTag, htmlTag, textTag]).size).toBe(3);
    expect(htmlTag).toBe(jsonTag?.replace(/"$/, '-html"'));
    // The JSON tag neither revalidates the page nor resumes it with a range.
    const page = { Accept: 'text/html' };
    const revalidated = await app.request('/api/v1/bookmarks/1', {
      headers: { ...page, 'If-None-Match': jsonTag as string },
    });
    expect(revalidated.statusCode).toBe(200);
    const resumed = await app.request('/api/v1/bookmarks/1', {
      headers: { ...page, Range: 'bytes=20-', 'If-Range': jsonTag as string },
    });
    expect(resumed.statusCode).toBe(200);
    const own = await app.request('/api/v1/bookmarks/1', {
      headers: { ...page, 'If-None-Match': htmlTag as string },
    });
    expect(own.statusCode).toBe(304);
  });

  it('lists the example bookmarks and filters them by tag and text', async () => {
    const all = await app.request('/api/v1/bookmarks');
    expect(all.statusCode).toBe(200);
    expect((await json(all)).map((b: { id: string }) => b.id)).toEqual(['1', '2']);
    const tagged = await json(await app.request('/api/v1/bookmarks?tag=http'));
    expect(tagged.map((b: { id: string }) => b.id)).toEqual(['2']);
    const found = await json(await app.request('/api/v1/bookmarks?q=EXAMPLE'));
    expect(found.map((b: { id: string }) => b.id)).toEqual(['1']);
    const literal = await json(await app.request('/api/v1/bookmarks?q=%25'));
    expect(literal).toEqual([]);
  });

  it('creates a bookmark with 201 and a Location, then serves it', async () => {
    const created = await app.request('/api/v1/bookmarks', {
      method: 'POST',
      json: { url: 'https://nodejs.org/', title: '  Node.js ', tags: ['js', 'js'] },
    });
    expect(created.statusCode).toBe(201);
    const body = await json(created);
    expect(body).toMatchObject({
      url: 'https://nodejs.org/',
      title: 'Node.js',
      tags: ['js'],
      version: 1,
    });
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

  it('answers 422 naming the field for text PostgreSQL cannot store, never reaching SQL', async () => {
    const before = await json(await app.request('/api/v1/bookmarks'));
    // NUL is refused by PostgreSQL's text type; a lone surrogate has no UTF-8 encoding.
    const requests: Array<[string, Parameters<BookmarksApp['request']>[1], string]> = [
      [
        '/api/v1/bookmarks',
        { method: 'POST', json: { url: 'https://a.example/', title: 'a\u0000b' } },
        'title',
      ],
      [
        '/api/v1/bookmarks',
        { method: 'POST', json: { url: 'https://a.example/\u0000', title: 'a' } },
        'url',
      ],
      [
        '/api/v1/bookmarks',
        { method: 'POST', json: { url: 'https://a.example/', title: 'a\ud800b' } },
        'title',
      ],
      ['/api/v1/bookmarks?q=%00', undefined, 'q'],
      ['/api/v1/bookmarks/2', { method: 'PATCH', json: { title: 'a\u0000b' } }, 'title'],
      [
        '/api/v1/bookmarks/2',
        { method: 'PATCH', json: { url: 'https://a.example/\udfff' } },
        'url',
      ],
    ];
    for (const [path, init, field] of requests) {
      const response = await app.request(path, init);
      expect(response.statusCode, `${init?.method ?? 'GET'} ${path}`).toBe(422);
      const issues = (await json(response)).details.map((issue: { path: string }) => issue.path);
      expect(issues).toEqual([field]);
    }
    expect(await json(await app.request('/api/v1/bookmarks'))).toEqual(before);
    // Characters PostgreSQL stores, astral ones included, are still accepted.
    const found = await app.request(`/api/v1/bookmarks?q=${encodeURIComponent('é😀')}`);
    expect(found.statusCode).toBe(200);
  });

  it('refuses a title of several lines, which would pose as several bookmarks in the text list', async () => {
    for (const title of [
      'Line one\n3\tFake entry\thttps://phish.example/',
      'a\tb',
      'a\rb',
      'a\u0085b',
      'a\u2028b',
      'a\u2029b',
    ]) {
      const response = await app.request('/api/v1/bookmarks', {
        method: 'POST',
        json: { url: 'https://a.example/', title },
      });
      expect(response.statusCode, JSON.stringify(title)).toBe(422);
      const issues = (await json(response)).details;
      expect(issues).toEqual([expect.objectContaining({ path: 'title' })]);
      expect(issues[0].message).toMatch(/one line/);
    }
    const text = await app.request('/api/v1/bookmarks', { headers: { Accept: 'text/plain' } });
    const lines = String(text.body).trimEnd().split('\n');
    const list = (await json(await app.request('/api/v1/bookmarks'))) as unknown[];
    expect(lines).toHaveLength(list.length);
  });

  it('answers 404 for an unknown bookmark, whatever the method and the id', async () => {
    for (const id of ['999', '0', 'abc', '99999999999', '1.5']) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const response = await app.request(`/api/v1/bookmarks/${id}`, {
          method,
          json: method === 'PATCH' ? { title: 'x' } : undefined,
        });
        expect(response.statusCode, `${method} ${id}`).toBe(404);
      }
    }
  });

  it('changes only the fields a PATCH sends', async () => {
    const before = await json(await app.request('/api/v1/bookmarks/2'));
    const patched = await json(
      await app.request('/api/v1/bookmarks/2', { method: 'PATCH', json: { title: 'HTTP' } }),
    );
    expect(patched).toMatchObject({
      title: 'HTTP',
      tags: before.tags,
      url: before.url,
      version: before.version + 1,
    });
  });

  it('updates and deletes', async () => {
    const patched = await app.request('/api/v1/bookmarks/1', {
      method: 'PATCH',
      json: { tags: ['changed'] },
    });
    expect(await json(patched)).toMatchObject({ id: '1', tags: ['changed'] });
    const current = patched.headers.get('etag') as string;
    const removed = await app.request('/api/v1/bookmarks/1', {
      method: 'DELETE',
      headers: { 'If-Match': current },
    });
    expect(removed.statusCode).toBe(204);
    expect((await app.request('/api/v1/bookmarks/1')).statusCode).toBe(404);
  });

  it('holds If-Unmodified-Since on PATCH and DELETE, up to the write', async () => {
    const created = await json(
      await app.request('/api/v1/bookmarks', {
        method: 'POST',
        json: { url: 'https://dates.example/', title: 'Dated' },
      }),
    );
    const path = `/api/v1/bookmarks/${created.id}`;
    const lastModified = (await app.request(path)).headers.get('last-modified') as string;
    // A client whose copy is a second older than the bookmark's last change (RFC 9110 §13.1.4).
    const older = new Date(Date.parse(lastModified) - 1000).toUTCString();
    for (const method of ['PATCH', 'DELETE']) {
      const stale = await app.request(path, {
        method,
        json: method === 'PATCH' ? { title: 'Lost update' } : undefined,
        headers: { 'If-Unmodified-Since': older },
      });
      expect(stale.statusCode, method).toBe(412);
    }
    const patched = await app.request(path, {
      method: 'PATCH',
      json: { title: 'Changed' },
      headers: { 'If-Unmodified-Since': lastModified },
    });
    expect(patched.statusCode).toBe(200);
    const changed = await json(patched);
    expect(changed).toMatchObject({ title: 'Changed', version: 2 });
    // The PATCH answers with the new date, as the GET would send it.
    const since = patched.headers.get('last-modified') as string;
    expect(since).toBe((await app.request(path)).headers.get('last-modified'));

    // Another client's change lands between this request's read and its write, in a later
    // second: the write itself must then fail, or the other change would be lost.
    const nextSecond = (Math.floor(Date.parse(changed.updatedAt) / 1000) + 1) * 1000;
    await new Promise((resolve) => setTimeout(resolve, nextSecond - Date.now() + 20));
    const [theirs, mine] = await Promise.all([
      app.request(path, { method: 'PATCH', json: { title: 'Their change' } }),
      app.request(path, {
        method: 'PATCH',
        json: { title: 'My change' },
        headers: { 'If-Unmodified-Since': since },
      }),
    ]);
    expect(theirs.statusCode).toBe(200);
    // Mine may have gone first (theirs is unconditional and wins); after theirs, it is a 412.
    expect([200, 412]).toContain(mine.statusCode);
    expect(await json(await app.request(path))).toMatchObject({ title: 'Their change' });

    const sinceTheirs = (await app.request(path)).headers.get('last-modified') as string;
    const afterTheirs = (Math.floor(Date.parse(sinceTheirs) / 1000) + 1) * 1000;
    await new Promise((resolve) => setTimeout(resolve, afterTheirs - Date.now() + 20));
    const [changedAgain, deleted] = await Promise.all([
      app.request(path, { method: 'PATCH', json: { title: 'Changed again' } }),
      app.request(path, { method: 'DELETE', headers: { 'If-Unmodified-Since': sinceTheirs } }),
    ]);
    // Either the delete went first (and the change found nothing), or it is a 412.
    expect([
      [200, 412],
      [404, 204],
    ]).toContainEqual([changedAgain.statusCode, deleted.statusCode]);
  }, 10_000);

  it('writes under If-Match as sent: * while the bookmark exists, a list when any tag matches', async () => {
    const created = await json(
      await app.request('/api/v1/bookmarks', {
        method: 'POST',
        json: { url: 'https://star.example/', title: 'Star' },
      }),
    );
    const path = `/api/v1/bookmarks/${created.id}`;
    // Concurrent changes with `If-Match: *` each read the bookmark, then write after others did:
    // the bookmark still exists, so each one holds (RFC 9110 §13.1.1).
    const starred = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        app.request(path, {
          method: 'PATCH',
          json: { tags: [`t${i}`] },
          headers: { 'If-Match': '*' },
        }),
      ),
    );
    expect(starred.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await json(await app.request(path))).toMatchObject({ version: 6 });
    // A list that names the version a concurrent change makes holds before and after it.
    const [first, either] = await Promise.all([
      app.request(path, {
        method: 'PATCH',
        json: { title: 'One' },
        headers: { 'If-Match': '"v6"' },
      }),
      app.request(path, {
        method: 'PATCH',
        json: { title: 'Two' },
        headers: { 'If-Match': '"v6", "v7"' },
      }),
    ]);
    expect(either.statusCode).toBe(200);
    expect([200, 412]).toContain(first.statusCode);
    // Over several field lines, beside tags that do not match (a weak one never does).
    const { version } = await json(await app.request(path));
    const removed = await app.request(path, {
      method: 'DELETE',
      headers: { 'If-Match': ['"v1"', `W/"v${version}"`, `"v${version}"`] },
    });
    expect(removed.statusCode).toBe(204);
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
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = decoder.decode(await bodyBytes(html));
    expect(page).toContain('&lt;script&gt;');
    expect(page).not.toContain('<script>');
    expect(page).toContain('href="https://example.org/?a=1&amp;b=2"');
    const text = await app.request('/api/v1/bookmarks', { headers: { accept: 'text/plain' } });
    expect(decoder.decode(await bodyBytes(text))).toContain(`${created.id}\t<script>`);
    const none = await app.request('/api/v1/bookmarks', { headers: { accept: 'image/png' } });
    expect(none.statusCode).toBe(406);
  });

  it('says HTML and text are UTF-8, and takes a charset=utf-8 in Accept', async () => {
    // RFC 6657 §4: text/plain without a charset would mean US-ASCII. A charset in Accept must
    // match what is sent (docs/application.md, "Content negotiation").
    for (const path of ['/api/v1/bookmarks', '/api/v1/bookmarks/2']) {
      for (const type of ['text/html', 'text/plain']) {
        for (const accept of [type, `${type}; charset=utf-8`, `${type}; charset=UTF-8`]) {
          const response = await app.request(path, { headers: { accept } });
          expect(response.statusCode, `${accept} ${path}`).toBe(200);
          expect(response.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
        }
        const latin1 = await app.request(path, {
          headers: { accept: `${type}; charset=iso-8859-1` },
        });
        expect(latin1.statusCode, `${type}; charset=iso-8859-1 ${path}`).toBe(406);
      }
    }
    const created = await json(
      await app.request('/api/v1/bookmarks', {
        method: 'POST',
        json: { url: 'https://unicode.example/', title: 'Café 😀' },
      }),
    );
    const text = await app.request(`/api/v1/bookmarks/${created.id}`, {
      headers: { accept: 'text/plain; charset=utf-8' },
    });
    expect(decoder.decode(await bodyBytes(text))).toContain('Café 😀');
  });
});

describe('a new database and an existing one', () => {
  it('runs the migrations and the seed once, then finds them done (PostgreSQL)', async (context) => {
    if (postgres === undefined) {
      console.warn(`Skipped: ${postgresMissing}`);
      context.skip(postgresMissing);
    }
    const databaseUrl = await (postgres as PostgresTestServer).createDatabase('bookmarks_reopen');
    const first = createApp({ databaseUrl, logger: silentLogger });
    await first.startup();
    await first.request('/api/v1/bookmarks', {
      method: 'POST',
      json: { url: 'https://kept.example/', title: 'Kept' },
    });
    await first.shutdown();
    // Two instances starting together (as Lambda instances do) take turns on the migrations.
    const again = [1, 2].map(() => createApp({ databaseUrl, logger: silentLogger }));
    await Promise.all(again.map((app) => app.startup()));
    const titles = (await json(await (again[0] as BookmarksApp).request('/api/v1/bookmarks'))).map(
      (b: { title: string }) => b.title,
    );
    expect(titles).toEqual(['Example Domain', 'RFC 9110: HTTP Semantics', 'Kept']);
    await Promise.all(again.map((app) => app.shutdown()));
  }, 60_000);
});

describe('seed files', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'restmachine-bookmarks-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('starts a new embedded database with a seed file, and keeps its data in a folder', async () => {
    const seedFile = join(directory, 'seed.json');
    const dataDir = join(directory, 'data');
    await writeFile(seedFile, JSON.stringify([{ url: 'https://a.example/', title: 'A' }]));
    const first = createApp({ seedFile, dataDir, logger: silentLogger });
    await first.startup();
    expect(await json(await first.request('/api/v1/bookmarks'))).toMatchObject([
      { id: '1', title: 'A', tags: [] },
    ]);
    await first.request('/api/v1/bookmarks', {
      method: 'POST',
      json: { url: 'https://b.example/', title: 'B' },
    });
    await first.shutdown();
    // Reopened: the data is there, and the seed is not added again.
    const again = createApp({ seedFile, dataDir, logger: silentLogger });
    await again.startup();
    const titles = (await json(await again.request('/api/v1/bookmarks'))).map(
      (b: { title: string }) => b.title,
    );
    expect(titles).toEqual(['A', 'B']);
    await again.shutdown();
  }, 120_000);

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
  }, 120_000);
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
  /** `npm start` in a process group of its own, as a terminal or a process manager runs it. */
  function start(env: Record<string, string>) {
    // `--ignore-scripts` skips `prestart` (the dependency check): the suite runs with its
    // dependencies installed, and a signal sent during an install would leave it half done.
    const child = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: root,
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
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
    const group = child.pid as number;
    return { child, group, exited, stdout: () => stdout, stderr: () => stderr };
  }

  /** True while any process of the group is left. */
  function groupAlive(group: number): boolean {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  }

  async function listening(app: ReturnType<typeof start>): Promise<string> {
    while (!/listening on (\S+)/.test(app.stdout())) {
      if (app.child.exitCode !== null) throw new Error(`exited early: ${app.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return (/listening on (\S+)/.exec(app.stdout()) as RegExpExecArray)[1] as string;
  }

  async function gone(group: number): Promise<boolean> {
    for (let waited = 0; waited < 10_000 && groupAlive(group); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return !groupAlive(group);
  }

  for (const [what, signal, toGroup] of [
    ['SIGTERM to the npm process', 'SIGTERM', false],
    ['Ctrl-C (SIGINT to the whole group)', 'SIGINT', true],
  ] as const) {
    it(`stops gracefully on ${what}: port closed, no process left`, async () => {
      const app = start({});
      try {
        const url = await listening(app);
        expect((await fetch(`${url}/api/v1/bookmarks`)).status).toBe(200);
        process.kill(toGroup ? -app.group : app.group, signal);
        expect(await app.exited).toBe(0);
        expect(await gone(app.group)).toBe(true);
        await expect(fetch(`${url}/api/v1/bookmarks`)).rejects.toThrow();
        expect(app.stdout()).toContain(`${signal}: stopping`);
        expect(app.stdout()).toContain('Bookmarks store closed');
      } finally {
        if (groupAlive(app.group)) process.kill(-app.group, 'SIGKILL');
      }
    }, 120_000);
  }

  it('exits non-zero with the message when startup fails', async () => {
    const app = start({ BOOKMARKS_SEED: '/nonexistent/seed.json' });
    try {
      expect(await app.exited).not.toBe(0);
      expect(app.stderr()).toContain(
        'The bookmarks API could not start: Cannot read the seed file /nonexistent/seed.json',
      );
      expect(await gone(app.group)).toBe(true);
    } finally {
      if (groupAlive(app.group)) process.kill(-app.group, 'SIGKILL');
    }
  }, 60_000);
});
