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
  // `npm install` rather than `npm ci`: with the lockfile present it installs the locked versions,
  // and unlike `npm ci` it accepts a lockfile without the optional platform packages (some of
  // Biome's) that a registry mirror may not carry.
  const status = npm(['install']);
  if (status !== 0) process.exit(status ?? 1);
  const now = new Date();
  if (existsSync(marker)) utimesSync(marker, now, now);
}
