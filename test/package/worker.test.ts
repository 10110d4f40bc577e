/**
 * The installed package in a Cloudflare Worker, run by workerd (the Workers runtime, which
 * `wrangler dev` runs locally). The Worker is docs/fetch.md's example, bundled into one file as
 * wrangler bundles it (esbuild, ESM, the `workerd` and `worker` conditions, `node:` modules left
 * to the runtime), and started once without and once with Node compatibility (`nodejs_compat`).
 * A Worker's global scope may not import a missing module nor draw random values: what the
 * core does when it loads must start there (docs/fetch.md).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Installed, packAndInstall } from './packed.js';
import { bundleWorker, needWorkerd, startWorkerd } from './workerd.js';

let installed: Installed;

beforeAll(async () => {
  installed = await packAndInstall();
}, 240_000);

afterAll(() => {
  if (installed !== undefined) rmSync(installed.work, { recursive: true, force: true });
});

const WORKER = `
import { RestApplication } from 'restmachine';
import { FetchAdapter } from 'restmachine/fetch';

const app = new RestApplication();
app.get('/hello/{name}', ({ name }) => ({ hello: name }));
app.post('/up', ({ files, formBody }) => ({
  files: files.map((file) => [file.filename, file.size]),
  formBody,
}));
const adapter = new FetchAdapter(app);

export default { fetch: adapter.fetch };
`;

const UPLOAD = [
  '--XyZ',
  'Content-Disposition: form-data; name="title"',
  '',
  'hello',
  '--XyZ',
  'Content-Disposition: form-data; name="file"; filename="a.txt"',
  'Content-Type: text/plain',
  '',
  'file content',
  '--XyZ--',
  '',
].join('\r\n');

describe.each([
  ['without Node compatibility', []],
  ['with nodejs_compat', ['nodejs_compat']],
])('a Worker importing restmachine, %s', (_name, flags) => {
  it('starts and answers a route', async (context) => {
    needWorkerd(context);
    const directory = mkdtempSync(join(installed.work, 'worker-'));
    await bundleWorker(installed.project, WORKER, directory);
    const worker = await startWorkerd(directory, [{ file: 'worker.js', flags }]);
    const [origin] = worker.origins;
    try {
      const answer = await fetch(`${origin}/hello/world`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ hello: 'world' });
      // The parser and the Node modules it requires load at the first upload.
      const upload = await fetch(`${origin}/up`, {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
        body: UPLOAD,
      });
      if (flags.includes('nodejs_compat')) {
        expect(await upload.json()).toEqual({
          files: [['a.txt', 12]],
          formBody: { title: 'hello' },
        });
      } else {
        expect(upload.status).toBe(500);
        expect((await fetch(`${origin}/hello/again`)).status).toBe(200);
      }
    } finally {
      worker.process.kill();
    }
  }, 60_000);
});

/** The dist/ files `entry` loads, through static and dynamic imports alike. */
function reachable(entry: string): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    const code = readFileSync(file, 'utf8');
    files.set(file, code);
    for (const [, specifier] of code.matchAll(/(?:from|import|import\()\s*"(\.{1,2}\/[^"]+)"/g)) {
      visit(resolve(dirname(file), specifier as string));
    }
  };
  visit(entry);
  return files;
}

it('no file the core, restmachine/fetch, /openapi or /static can load, even lazily, imports a node: module statically', () => {
  const dist = join(installed.project, 'node_modules', 'restmachine', 'dist');
  const files = new Map([
    ...reachable(join(dist, 'index.js')),
    ...reachable(join(dist, 'adapters', 'fetch', 'index.js')),
    ...reachable(join(dist, 'openapi', 'index.js')),
    ...reachable(join(dist, 'static', 'index.js')),
  ]);
  // The multipart parser is among them, loaded by dynamic import().
  expect(
    [...files.values()].some((code) => code.includes('requireNodeModule("node:stream")')),
  ).toBe(true);
  for (const [file, code] of files) {
    const imports = code.match(
      /^\s*(?:import|export)\b[^;]*?\bfrom\s*"node:[^"]+"|^import\s*"node:/gm,
    );
    expect({ file, imports }).toEqual({ file, imports: null });
  }
});
