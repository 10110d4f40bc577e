// Installs the project's dependencies when node_modules is missing or older than the lockfile,
// so `npm start` and `npm test` work on a fresh clone. Uses only Node's standard library.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, utimesSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale =
  !existsSync(marker) || statSync(marker).mtimeMs < statSync('package-lock.json').mtimeMs;

function npm(args) {
  return spawnSync('npm', [...args, '--no-audit', '--no-fund'], { stdio: 'inherit' }).status;
}

if (stale) {
  console.log('Installing dependencies (node_modules is missing or older than package-lock.json)');
  // `npm ci` installs exactly what the lockfile names and never rewrites it, so neither
  // `npm start` nor `npm test` leaves `git status` dirty.
  const status = npm(['ci']);
  if (status !== 0) process.exit(status ?? 1);
  const now = new Date();
  if (existsSync(marker)) utimesSync(marker, now, now);
}
