/**
 * The package as a user gets it, for the tests in this folder: `npm pack` of a fresh build,
 * installed into an empty project. The build runs in a copy of the sources under os.tmpdir(),
 * so the working tree's dist/ is neither needed nor touched. The package's dependencies come
 * from npm's cache where it has them (`--prefer-offline`).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);

/** This repository's root. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Installed {
  /** A temporary directory holding everything below; the caller removes it. */
  work: string;
  tarball: string;
  /** A project (`"type": "module"`) with the tarball installed, and an empty `src/`. */
  project: string;
}

export async function packAndInstall(): Promise<Installed> {
  const work = mkdtempSync(join(tmpdir(), 'restmachine-package-'));
  // A copy of what the build reads, so the build and `npm pack` leave the working tree as it is.
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const entry of ['src', 'scripts', 'docs', 'package.json', 'README.md', 'LICENSE']) {
    cpSync(join(root, entry), join(stage, entry), { recursive: true });
  }
  for (const entry of ['tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(root, entry), join(stage, entry));
  }
  symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir');
  // `npm pack` builds first (the `prepack` script), so a tarball always holds dist/.
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: stage });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  const tarball = join(work, (info as { filename: string }).filename);

  const project = join(work, 'project');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await run(
    'npm',
    ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
    { cwd: project },
  );
  return { work, tarball, project };
}

/** Links a package of this repository's node_modules into the project's, as `npm install` would place it. */
export function linkFromRepository(project: string, name: string): void {
  const target = join(project, 'node_modules', name);
  mkdirSync(join(target, '..'), { recursive: true });
  symlinkSync(join(root, 'node_modules', name), target, 'dir');
}
