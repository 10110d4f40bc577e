// Installs the project's dependencies when node_modules is missing or older than the lockfile,
// so `npm start` and `npm test` work on a fresh clone. Uses only Node's standard library.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale =
  !existsSync(marker) || statSync(marker).mtimeMs < statSync('package-lock.json').mtimeMs;

if (stale) {
  console.log('Installing dependencies (node_modules is missing or older than package-lock.json)');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
