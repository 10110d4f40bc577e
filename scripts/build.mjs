// Compiles src/ to dist/ (ESM + declarations) and marks the CLI executable.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
const tsc = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
if (existsSync('dist/config/cli.js')) chmodSync('dist/config/cli.js', 0o755);
