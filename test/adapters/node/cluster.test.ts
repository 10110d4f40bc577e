/**
 * serveCluster(): a primary and two workers sharing one port, started and stopped as a real
 * process tree.
 */
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { launch, listeningUrl, pidFrom } from './cluster-process.js';
import { sleep } from './helpers.js';

it('serves from two workers and shuts them all down on SIGTERM', async () => {
  const { child, output } = launch();
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const url = await listeningUrl(child, output);
    const pids = new Set<number>();
    for (let i = 0; i < 10; i++) pids.add(await pidFrom(url));
    expect(pids.size).toBe(2);
    expect(pids.has(child.pid as number)).toBe(false);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of pids) expect(output()).toContain(`worker ${pid} shut down`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it("logs a worker's failed shutdown and makes every process exit with code 1", async () => {
  const { child, output } = launch({ SHUTDOWN_FAILS: '1' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    await listeningUrl(child, output);
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect((output().match(/worker \d+ logged: Shutdown failed/g) ?? []).length).toBe(2);
    expect((output().match(/worker \d+ exited with code 1/g) ?? []).length).toBe(2);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it('rejects in the primary with the message when a worker fails to start', async () => {
  const { child, output } = launch({ FAIL_STARTUP: '1' });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(output()).toContain('failed: A worker failed to start: database unreachable');
  expect(code).toBe(1);
}, 30_000);

it('shuts down workers still starting when SIGTERM comes first, and never reports ready', async () => {
  const { child, output } = launch({ SLOW_STARTUP: '1' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    while ((output().match(/starting/g) ?? []).length < 2) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    child.kill('SIGTERM');
    await exited;
    expect(output()).not.toMatch(/listening http/);
    expect(output()).toContain('failed: Stopped by SIGTERM before every worker was listening');
    // Each worker ran its shutdown handlers rather than being killed at the deadline.
    expect((output().match(/shut down/g) ?? []).length).toBeGreaterThanOrEqual(2);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it('shuts down workers gracefully when SIGTERM comes before their script reaches serveCluster()', async () => {
  const { child, output } = launch({ SLOW_IMPORT: '1' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    while ((output().match(/importing/g) ?? []).length < 2) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    const signalled = Date.now();
    child.kill('SIGTERM');
    await exited;
    // Well before the primary's deadline (shutdownTimeout + 5 s) kills workers that ignored it.
    expect(Date.now() - signalled).toBeLessThan(8_000);
    expect(output()).toContain('failed: Stopped by SIGTERM before every worker was listening');
    expect((output().match(/worker \d+ shut down/g) ?? []).length).toBe(2);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it('replaces a worker that dies, waiting twice as long each time the replacement dies too', async () => {
  const { child, output } = launch({ REPLACEMENTS_FAIL: '1' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const url = await listeningUrl(child, output);
    const crashed = await pidFrom(url, '/crash');
    // The crashed worker is replaced after 1 s; each replacement fails to start, and the next
    // one waits 2 s, then 4 s.
    while (!/starting another in 4 s/.test(output())) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    const pauses = [...output().matchAll(/worker (\d+) (.+); starting another in (\d+) s/g)];
    expect(pauses.map((match) => [match[2], match[3]])).toEqual([
      ['exited (exit code 3)', '1'],
      ['failed to start (database unreachable)', '2'],
      ['failed to start (database unreachable)', '4'],
    ]);
    expect(pauses[0]?.[1]).toBe(String(crashed));
    // The worker that did not crash still serves.
    expect(await pidFrom(url)).not.toBe(crashed);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it('keeps the primary running when its only worker dies, until the replacement is forked', async () => {
  const { child, output } = launch({ ONE_WORKER: '1' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const url = await listeningUrl(child, output);
    await pidFrom(url, '/crash');
    while (!/starting another in 1 s/.test(output())) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    // Past the 1 s pause: the primary waited for it and forked the replacement.
    await sleep(2_500);
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it('replaces the last worker of a port-0 cluster on the port the cluster reported', async () => {
  const { child, output } = launch({ ONE_WORKER: '1' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const url = await listeningUrl(child, output);
    const crashed = await pidFrom(url, '/crash');
    while (!/starting another in 1 s/.test(output())) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    // The replacement starts 1 s after the crash; it must answer on the same URL.
    const deadline = Date.now() + 10_000;
    let replacement: number | undefined;
    while (replacement === undefined && Date.now() < deadline) {
      replacement = await pidFrom(url).catch(() => undefined);
      if (replacement === undefined) await sleep(100);
    }
    expect(replacement).toBeDefined();
    expect(replacement).not.toBe(crashed);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it('replaces a worker of a port-0 cluster while the other still serves, on the shared port', async () => {
  const { child, output } = launch();
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const url = await listeningUrl(child, output);
    const crashed = await pidFrom(url, '/crash');
    while (!/starting another in 1 s/.test(output())) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    const survivor = await pidFrom(url);
    // The replacement is forked 1 s after the crash and must join the socket the survivor
    // holds (asking for the concrete port would be EADDRINUSE, replacement after replacement).
    const deadline = Date.now() + 10_000;
    const seen = new Set<number>();
    while (Date.now() < deadline) {
      seen.add(await pidFrom(url));
      if ([...seen].some((pid) => pid !== crashed && pid !== survivor)) break;
      await sleep(100);
    }
    expect([...seen].filter((pid) => pid !== crashed && pid !== survivor)).toHaveLength(1);
    expect(output()).not.toContain('EADDRINUSE');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it("reports and keeps the application's port when a startup handler opens another server first", async () => {
  const { child, output } = launch({ STATS_SERVER: '1' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const url = await listeningUrl(child, output);
    const statsPort = /stats on port (\d+)/.exec(output())?.[1];
    expect(statsPort).toBeDefined();
    expect(new URL(url).port).not.toBe(statsPort);
    const crashed = await pidFrom(url, '/crash');
    expect(crashed).toEqual(expect.any(Number));
    while (!/starting another in 1 s/.test(output())) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    const survivor = await pidFrom(url);
    // The replacement opens its stats server first, then must join the application's socket.
    const deadline = Date.now() + 10_000;
    const seen = new Set<number>();
    while (Date.now() < deadline) {
      seen.add(await pidFrom(url));
      if ([...seen].some((pid) => pid !== crashed && pid !== survivor)) break;
      await sleep(100);
    }
    expect([...seen].filter((pid) => pid !== crashed && pid !== survivor)).toHaveLength(1);
    expect(output()).not.toContain('failed to start');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

it("says so when another process took a port-0 cluster's port after its last worker died", async () => {
  const { child, output } = launch({ ONE_WORKER: '1' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const squatter = createServer();
  try {
    const url = await listeningUrl(child, output);
    await pidFrom(url, '/crash');
    while (!/starting another in 1 s/.test(output())) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    // Within the 1 s pause, nobody holds the port.
    await new Promise<void>((resolve, reject) => {
      squatter.once('error', reject).listen(Number(new URL(url).port), '127.0.0.1', resolve);
    });
    while (!/starting another in 2 s/.test(output())) {
      if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
      await sleep(50);
    }
    expect(output()).toContain(
      `failed to start (port ${new URL(url).port}, the cluster's, was taken by another process while no worker held it)`,
    );
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    squatter.close();
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 30_000);

/** Whether process `pid` still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of the two workers, from requests on new connections. */
async function workerPids(url: string): Promise<number[]> {
  const pids = new Set<number>();
  while (pids.size < 2) pids.add(await pidFrom(url));
  return [...pids];
}

it('lets workers finish their requests and shut down gracefully when the primary is killed', async () => {
  const { child, output } = launch();
  let pids: number[] = [];
  try {
    const url = await listeningUrl(child, output);
    pids = await workerPids(url);
    const inFlight = pidFrom(url, '/slow');
    await sleep(300);
    child.kill('SIGKILL');
    expect(pids).toContain(await inFlight);
    const deadline = Date.now() + 8_000;
    while (pids.some(alive) && Date.now() < deadline) await sleep(50);
    expect(pids.filter(alive)).toEqual([]);
    for (const pid of pids) expect(output()).toContain(`worker ${pid} shut down`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
  }
}, 30_000);

it('ends the primary and kills its workers at once on a second SIGTERM', async () => {
  const { child, output } = launch();
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  let pids: number[] = [];
  try {
    const url = await listeningUrl(child, output);
    pids = await workerPids(url);
    const inFlight = pidFrom(url, '/slow').then(
      () => 'answered',
      () => 'cut',
    );
    await sleep(300);
    child.kill('SIGTERM');
    await sleep(200);
    child.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    expect(await inFlight).toBe('cut');
    const deadline = Date.now() + 2_000;
    while (pids.some(alive) && Date.now() < deadline) await sleep(50);
    expect(pids.filter(alive)).toEqual([]);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
  }
}, 30_000);
