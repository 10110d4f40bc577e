// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * Files that do not end: `/dev/zero` reports a size of 0 and yields bytes forever. Every file the
 * loader reads (`${file:...}`, the configuration, the schema) must be refused as TOO_LARGE after
 * reading a bounded number of bytes, not read to the end (a hang, then out of memory).
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Config,
  ConfigTooLargeError,
  DEFAULT_MAX_VALUE_BYTES,
  MAX_FILE_BYTES,
  Schema,
} from '../../src/config/index.js';
import { thrown } from './helpers.js';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'src', 'config', 'cli.ts');

/** A folder holding `zero.yaml` and `zero.json`, links to /dev/zero. */
function folderWithZeroLinks(): string {
  const folder = mkdtempSync(join(tmpdir(), 'restmachine-file-limits-'));
  symlinkSync('/dev/zero', join(folder, 'zero.yaml'));
  symlinkSync('/dev/zero', join(folder, 'zero.json'));
  return folder;
}

describe('${file:...} of a file that does not end', () => {
  it('is TOO_LARGE at maxValueBytes, naming the key and the expression', () => {
    const config = Config.fromYaml('secret: ${file:/dev/zero}\n', { filename: 'c.yaml' });
    const error = thrown(() => config.resolve());
    expect(error).toBeInstanceOf(ConfigTooLargeError);
    expect(error.message).toBe(
      `c.yaml:1:9: secret: \${file:/dev/zero}: the value is larger than the limit of ${DEFAULT_MAX_VALUE_BYTES} bytes (maxValueBytes)`,
    );
  });

  it('stops at maxTotalBytes when maxValueBytes is off', () => {
    const config = Config.fromObject(
      { secret: '${file:/dev/zero}' },
      { maxValueBytes: Infinity, maxTotalBytes: 1000 },
    );
    expect(thrown(() => config.resolve())).toMatchObject({
      code: 'TOO_LARGE',
      option: 'maxTotalBytes',
      limit: 1000,
      key: 'secret',
    });
  });

  it('still reads files whose size is unknown but that end: /proc', () => {
    const config = Config.fromObject({ version: '${file:/proc/version}' });
    expect(config.get('version')).toBe(readFileSync('/proc/version', 'utf8'));
  });
});

describe('a configuration or schema file that does not end', () => {
  it('documents 4 MiB as the limit of a configuration or schema file', () => {
    expect(MAX_FILE_BYTES).toBe(4 * 1024 * 1024);
  });

  it('refuses the configuration file as TOO_LARGE', () => {
    for (const path of ['/dev/zero', join(folderWithZeroLinks(), 'zero.yaml')]) {
      const error = thrown(() => Config.fromYamlFile(path));
      expect(error).toBeInstanceOf(ConfigTooLargeError);
      expect(error).toMatchObject({ code: 'TOO_LARGE', option: 'file', limit: MAX_FILE_BYTES });
      expect(error.message).toBe(
        `${path}: the file is longer than the limit of ${MAX_FILE_BYTES} bytes (MAX_FILE_BYTES)`,
      );
    }
  });

  it('refuses the schema file as TOO_LARGE, YAML or JSON', () => {
    const folder = folderWithZeroLinks();
    for (const name of ['zero.yaml', 'zero.json']) {
      const path = join(folder, name);
      const error = thrown(() => Schema.fromFile(path));
      expect(error).toBeInstanceOf(ConfigTooLargeError);
      expect(error.message).toBe(
        `${path}: the file is longer than the limit of ${MAX_FILE_BYTES} bytes (MAX_FILE_BYTES)`,
      );
    }
  });

  it('refuses a regular file one byte over the limit, and reads one at the limit', () => {
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-file-limits-'));
    const prefix = 'text: ';
    const atLimit = join(folder, 'at-limit.yaml');
    writeFileSync(atLimit, prefix + 'x'.repeat(MAX_FILE_BYTES - prefix.length));
    const overLimit = join(folder, 'over-limit.yaml');
    writeFileSync(overLimit, prefix + 'x'.repeat(MAX_FILE_BYTES - prefix.length + 1));
    expect(Config.fromYamlFile(atLimit).get<string>('text')).toHaveLength(
      MAX_FILE_BYTES - prefix.length,
    );
    expect(thrown(() => Config.fromYamlFile(overLimit)).code).toBe('TOO_LARGE');
  });
});

describe('restmachine-config and files that do not end', () => {
  function run(args: string[]) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('exits 1 with one line for a configuration, a schema or a ${file:} that is /dev/zero', () => {
    const folder = folderWithZeroLinks();
    const config = join(folder, 'config.yaml');
    writeFileSync(config, 'secret: ${file:/dev/zero}\n');
    const tooLong = `the file is longer than the limit of ${MAX_FILE_BYTES} bytes (MAX_FILE_BYTES)`;
    expect(run(['dump', '/dev/zero'])).toEqual({
      status: 1,
      stdout: '',
      stderr: `/dev/zero: ${tooLong}\n`,
    });
    const schema = join(folder, 'zero.yaml');
    expect(run(['validate', config, '--schema', schema])).toEqual({
      status: 1,
      stdout: '',
      stderr: `${schema}: ${tooLong}\n`,
    });
    expect(run(['dump', config])).toEqual({
      status: 1,
      stdout: '',
      stderr: `${config}:1:9: secret: \${file:/dev/zero}: the value is larger than the limit of ${DEFAULT_MAX_VALUE_BYTES} bytes (maxValueBytes)\n`,
    });
  });
});
