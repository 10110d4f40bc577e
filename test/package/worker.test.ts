/**
 * The installed package in a Cloudflare Worker, run by workerd (the Workers runtime, which
 * `wrangler dev` runs locally). The Worker is docs/fetch.md's example, bundled into one file as
 * wrangler bundles it (esbuild, ESM, the `workerd` and `worker` conditions, `node:` modules left
 * to the runtime), and started once without and once with Node compatibility (`nodejs_compat`).
 * A Worker's global scope may not import a missing module nor draw random values: what the
 * core does when it loads must start there (docs/fetch.md).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { type Installed, packAndInstall, root } from './packed.js';

let installed: Installed;

beforeAll(async () => {
  installed = await packAndInstall();
}, 240_000);

afterAll(() => {
  if (installed !== undefined) rmSync(installed.work, { recursive: true, force: true });
});

const WORKERD = join(root, 'node_modules', '.bin', 'workerd');

/** Why workerd cannot run here, or undefined when it can. */
function workerdUnavailable(): string | undefined {
  const probe = spawnSync(WORKERD, ['--version'], { encoding: 'utf8' });
  if (probe.status === 0) return undefined;
  return `workerd cannot run here: ${probe.error?.message ?? probe.stderr.trim()}`;
}

/** Skips outside CI when the runtime cannot run here; in CI that is a failure. */
function needWorkerd(context: TestContext): void {
  const reason = workerdUnavailable();
  if (reason === undefined) return;
  if (process.env.CI === 'true') throw new Error(reason);
  console.warn(`skipped: ${reason}`);
  context.skip(reason);
}

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

/** The Worker bundled into one file, as wrangler bundles it. */
async function bundleWorker(directory: string): Promise<void> {
  const entry = join(mkdtempSync(join(installed.project, 'src', 'worker-')), 'worker.ts');
  writeFileSync(entry, WORKER);
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['node:*'],
    outfile: join(directory, 'worker.js'),
    absWorkingDir: installed.project,
    logLevel: 'silent',
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Starts workerd on the bundled Worker; resolves once it answers, rejects if it exits first. */
async function startWorker(
  directory: string,
  flags: string[],
): Promise<{ origin: string; process: ChildProcess; output: () => string }> {
  const port = await freePort();
  writeFileSync(
    join(directory, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ${JSON.stringify(flags)},
);
`,
  );
  const child = spawn(WORKERD, ['serve', 'config.capnp'], { cwd: directory });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`workerd exited at startup:\n${output}`);
    try {
      await fetch(`${origin}/`);
      return { origin, process: child, output: () => output };
    } catch {
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }
  child.kill();
  throw new Error(`workerd did not answer within 20 s:\n${output}`);
}

describe.each([
  ['without Node compatibility', []],
  ['with nodejs_compat', ['nodejs_compat']],
])('a Worker importing restmachine, %s', (_name, flags) => {
  it('starts and answers a route', async (context) => {
    needWorkerd(context);
    const directory = mkdtempSync(join(installed.work, 'worker-'));
    await bundleWorker(directory);
    const worker = await startWorker(directory, flags);
    try {
      const answer = await fetch(`${worker.origin}/hello/world`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ hello: 'world' });
      // The parser and the Node modules it requires load at the first upload.
      const upload = await fetch(`${worker.origin}/up`, {
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
        expect((await fetch(`${worker.origin}/hello/again`)).status).toBe(200);
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

it('no file the core or restmachine/fetch can load, even lazily, imports a node: module statically', () => {
  const dist = join(installed.project, 'node_modules', 'restmachine', 'dist');
  const files = new Map([
    ...reachable(join(dist, 'index.js')),
    ...reachable(join(dist, 'adapters', 'fetch', 'index.js')),
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
