/** The `restmachine-config` command, run as a real process on the TypeScript source. */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(import.meta.dirname, 'fixtures');
const cli = join(root, 'src', 'config', 'cli.ts');
const schema = join(fixtures, 'seed-schema.yaml');

function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('restmachine-config', () => {
  it('starts with a shebang, so the built file runs as a command', () => {
    expect(readFileSync(cli, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('validate: exit 0 for a valid configuration', () => {
    const file = join(fixtures, 'seed-valid.yaml');
    expect(run(['validate', file, '--schema', schema])).toEqual({
      status: 0,
      stdout: `${file}: valid\n`,
      stderr: '',
    });
  });

  it('validate: exit 1 with every violation on stderr', () => {
    const file = join(fixtures, 'seed-invalid.yaml');
    const result = run(['validate', file, '--schema', schema]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        `${file}:7:1: (root): Additional properties are not allowed ('extra' was unexpected)`,
        `${file}:2:9: app.name: "" is shorter than 1 character`,
        `${file}:3:10: app.debug: "yes" is not of type "boolean"`,
        `${file}:6:9: database.port: 70000 is greater than the maximum of 65535`,
        '',
      ].join('\n'),
    );
  });

  it('validate --raw accepts placeholders that validate rejects once resolved', () => {
    const file = join(fixtures, 'seed-env.yaml');
    expect(run(['validate', file, '--schema', schema, '--raw'], { PORT: 'abc' }).status).toBe(0);
    const resolved = run(['validate', file, '--schema', schema], { PORT: 'abc' });
    expect(resolved.status).toBe(1);
    expect(resolved.stderr).toBe(
      `${file}:6:9: database.port: <from env:PORT> is not of type "integer"\n`,
    );
    expect(run(['validate', file, '--schema', schema], { PORT: '8080' }).status).toBe(0);
  });

  it('validate: exit 1 for a variable that is not set', () => {
    const result = run(['validate', join(fixtures, 'seed-env.yaml'), '--schema', schema]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('environment variable "PORT" not found');
  });

  it('get: prints scalars raw and the rest as JSON', () => {
    const file = join(fixtures, 'seed-valid.yaml');
    expect(run(['get', file, 'app.name']).stdout).toBe('orders\n');
    expect(run(['get', file, 'database.port']).stdout).toBe('5432\n');
    expect(run(['get', file, 'database'])).toEqual({
      status: 0,
      stdout: '{\n  "host": "db.internal",\n  "port": 5432\n}\n',
      stderr: '',
    });
  });

  it('get: exit 1 for a missing path', () => {
    const file = join(fixtures, 'seed-valid.yaml');
    const result = run(['get', file, 'database.user']);
    expect(result).toEqual({
      status: 1,
      stdout: '',
      stderr: `${file}: path "database.user" not found\n`,
    });
  });

  it('get: exit 2 with the usage for a path that cannot be read, before the file is read', () => {
    const file = join(fixtures, 'seed-valid.yaml');
    for (const target of [file, join(fixtures, 'no-such-file.yaml')]) {
      const result = run(['get', target, 'a..b']);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^restmachine-config: invalid path "a\.\.b": unexpected "\." at column 3\n\nUsage:\n/,
      );
    }
  });

  it('dump: resolved YAML by default, JSON on request', () => {
    const file = join(fixtures, 'files', 'app.yaml');
    expect(run(['dump', file]).stdout).toBe(
      'password: secret-from-file\nport: "8443"\nnested: secret-from-file\n',
    );
    expect(JSON.parse(run(['dump', file, '--format', 'json']).stdout)).toEqual({
      password: 'secret-from-file',
      port: '8443',
      nested: 'secret-from-file',
    });
  });

  it('exit 1 for a missing configuration file or an invalid schema', () => {
    const missing = run(['dump', join(fixtures, 'nope.yaml')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('nope.yaml" not found');
    const invalid = run([
      'validate',
      join(fixtures, 'seed-valid.yaml'),
      '--schema',
      join(fixtures, 'invalid-schema.yaml'),
    ]);
    expect(invalid.status).toBe(1);
    expect(invalid.stderr).toContain('invalid schema: properties.port.type');
  });

  it('validate: a $schema in either scheme works; an unknown one is one line, exit 1', () => {
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-cli-'));
    const file = join(fixtures, 'seed-valid.yaml');
    const https = join(folder, 'https.yaml');
    writeFileSync(https, '$schema: https://json-schema.org/draft-07/schema#\ntype: object\n');
    expect(run(['validate', file, '--schema', https])).toEqual({
      status: 0,
      stdout: `${file}: valid\n`,
      stderr: '',
    });
    const unknown = join(folder, 'unknown.yaml');
    writeFileSync(unknown, 'type: object\n$schema: https://example.com/s\n');
    expect(run(['validate', file, '--schema', unknown])).toEqual({
      status: 1,
      stdout: '',
      stderr: `${unknown}:2:1: unknown "$schema" "https://example.com/s"; expected draft-06, draft-07 (the default), 2019-09 or 2020-12\n`,
    });
  });

  it.each([
    [[]],
    [['frobnicate', 'x.yaml']],
    [['validate', 'x.yaml']],
    [['get', 'x.yaml']],
    [['dump', 'x.yaml', '--format', 'xml']],
    [['get', 'x.yaml', 'a', '--bogus']],
  ])('exit 2 with the usage for %j', (args) => {
    const result = run(args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^restmachine-config: .+\n\nUsage:\n/);
  });

  it('--help prints the usage on stdout', () => {
    const result = run(['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      'restmachine-config validate <config> --schema <schema> [--raw]',
    );
  });
});
