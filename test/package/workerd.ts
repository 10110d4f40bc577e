/**
 * workerd (the Cloudflare Workers runtime, which `wrangler dev` runs locally) for the tests in
 * this folder: a Worker bundled into one file as wrangler bundles it (esbuild, ESM, the
 * `workerd` and `worker` conditions, `node:` modules left to the runtime), and one workerd
 * process serving one or more such Workers, each on its own port with its own flags.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { TestContext } from 'vitest';
import { root } from './packed.js';

const WORKERD = join(root, 'node_modules', '.bin', 'workerd');

/** Why workerd cannot run here, or undefined when it can. */
function workerdUnavailable(): string | undefined {
  const probe = spawnSync(WORKERD, ['--version'], { encoding: 'utf8' });
  if (probe.status === 0) return undefined;
  return `workerd cannot run here: ${probe.error?.message ?? probe.stderr.trim()}`;
}

/** Skips outside CI when the runtime cannot run here; in CI that is a failure. */
export function needWorkerd(context: TestContext): void {
  const reason = workerdUnavailable();
  if (reason === undefined) return;
  if (process.env.CI === 'true') throw new Error(reason);
  console.warn(`skipped: ${reason}`);
  context.skip(reason);
}

/**
 * `source` (a Worker module importing the installed package) bundled into `file` in
 * `directory`, as wrangler bundles it. `project` is where the package is installed.
 */
export async function bundleWorker(
  project: string,
  source: string,
  directory: string,
  file = 'worker.js',
): Promise<void> {
  const entry = join(mkdtempSync(join(project, 'src', 'worker-')), 'worker.ts');
  writeFileSync(entry, source);
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['node:*'],
    outfile: join(directory, file),
    absWorkingDir: project,
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

/** A bundled Worker in the directory given to {@link startWorkerd}, and its compatibility flags. */
export interface WorkerSpec {
  file: string;
  flags: string[];
}

export interface RunningWorkerd {
  /** The origin of each Worker, in the order given. */
  origins: string[];
  process: ChildProcess;
  /** What workerd wrote so far (its stdout and stderr, `console.log` of the Workers included). */
  output: () => string;
}

/**
 * Starts one workerd serving each Worker on a port of its own; resolves once every one answers
 * `GET /`, rejects if workerd exits first.
 */
export async function startWorkerd(
  directory: string,
  workers: readonly WorkerSpec[],
): Promise<RunningWorkerd> {
  const ports = await Promise.all(workers.map(() => freePort()));
  const services = workers.map((_, index) => `(name = "w${index}", worker = .w${index})`);
  const sockets = ports.map(
    (port, index) =>
      `(name = "s${index}", address = "127.0.0.1:${port}", http = (), service = "w${index}")`,
  );
  const definitions = workers.map(
    ({ file, flags }, index) => `const w${index} :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "${file}")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ${JSON.stringify(flags)},
);`,
  );
  writeFileSync(
    join(directory, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [${services.join(', ')}],
  sockets = [${sockets.join(', ')}],
);
${definitions.join('\n')}
`,
  );
  const child = spawn(WORKERD, ['serve', 'config.capnp'], { cwd: directory });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const origins = ports.map((port) => `http://127.0.0.1:${port}`);
  const deadline = Date.now() + 20_000;
  for (const origin of origins) {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`workerd exited at startup:\n${output}`);
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`workerd did not answer within 20 s:\n${output}`);
      }
      try {
        await fetch(`${origin}/`);
        break;
      } catch {
        await new Promise((wait) => setTimeout(wait, 100));
      }
    }
  }
  return { origins, process: child, output: () => output };
}
