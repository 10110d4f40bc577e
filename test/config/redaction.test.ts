// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * Values that came, wholly or in part, from `${env:...}` or `${file:...}` never appear in
 * messages or in `errors[].value`: they are shown as `<from env:NAME>` / `<from file:PATH>`.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Config, type ConfigValidationError, Schema } from '../../src/config/index.js';
import { messageLines, thrown } from './helpers.js';

const files = join(import.meta.dirname, 'fixtures', 'files');
const SECRET = 'hunter2-secret';
const FILE_SECRET = 'secret-from-file';

const schema = Schema.fromYaml(`
type: object
properties:
  database:
    type: object
    properties:
      port: { type: integer, maximum: 65535 }
      password: { type: string, minLength: 100 }
      url: { type: string, pattern: "^mysql://" }
      mode: { enum: [a, b] }
  credentials:
    type: object
    additionalProperties: false
    properties: { user: { type: string } }
  tags: { type: array, maxItems: 1 }
`);

function validation(text: string, env: Record<string, string> = {}): ConfigValidationError {
  const error = thrown(() =>
    Config.fromYaml(text, { filename: 'app.yaml', env, baseDir: files }).validate(schema),
  );
  expect(error.code).toBe('VALIDATION');
  const shown = `${error.message}\n${JSON.stringify((error as ConfigValidationError).errors)}`;
  expect(shown).not.toContain(SECRET);
  expect(shown).not.toContain(FILE_SECRET);
  return error as ConfigValidationError;
}

describe('redaction of values from the environment and files', () => {
  it('keeps the wording for literal values', () => {
    expect(
      messageLines(() =>
        Config.fromYaml('database:\n  port: 99999', { filename: 'app.yaml' }).validate(schema),
      ),
    ).toEqual(['app.yaml:2:9: database.port: 99999 is greater than the maximum of 65535']);
  });

  it('shows a coerced environment value as <from env:NAME>', () => {
    const error = validation('database:\n  port: ${env:DB_PORT}', { DB_PORT: '99999' });
    expect(error.message).toBe(
      'app.yaml:2:9: database.port: <from env:DB_PORT> is greater than the maximum of 65535',
    );
    expect(error.errors[0]).toMatchObject({ keyword: 'maximum', value: '<from env:DB_PORT>' });
  });

  it('shows text that could not be coerced the same way', () => {
    const error = validation('database:\n  port: ${env:DB_PORT}', { DB_PORT: SECRET });
    expect(error.message).toBe(
      'app.yaml:2:9: database.port: <from env:DB_PORT> is not of type "integer"',
    );
    expect(error.errors[0]?.value).toBe('<from env:DB_PORT>');
  });

  it('shows a file value as <from file:PATH>, the path as written', () => {
    const error = validation('database:\n  password: ${file:secret.txt}');
    expect(error.message).toBe(
      'app.yaml:2:13: database.password: <from file:secret.txt> is shorter than 100 characters',
    );
    expect(error.errors[0]?.value).toBe('<from file:secret.txt>');
  });

  it('redacts text of which only a part came from the environment', () => {
    const error = validation('database:\n  url: "postgres://app:${env:DB_PASSWORD}@db/app"', {
      DB_PASSWORD: SECRET,
    });
    expect(error.message).toBe(
      'app.yaml:2:8: database.url: <from env:DB_PASSWORD> does not match "^mysql://"',
    );
  });

  it('names every source of a value made from several', () => {
    const error = validation('database:\n  mode: "${env:USER}:${file:secret.txt}:${env:USER}"', {
      USER: SECRET,
    });
    expect(error.errors[0]?.value).toBe('<from env:USER, file:secret.txt>');
  });

  it('follows chains of references back to the environment', () => {
    const text = [
      'secrets:',
      '  password: ${env:DB_PASSWORD}',
      'alias: ${secrets.password}',
      'database:',
      '  password: ${alias}',
      '  mode: "x-${.password}"',
    ].join('\n');
    const error = validation(text, { DB_PASSWORD: SECRET });
    expect(error.errors.map((violation) => [violation.path, violation.value])).toEqual([
      ['database.password', '<from env:DB_PASSWORD>'],
      ['database.mode', '<from env:DB_PASSWORD>'],
    ]);
  });

  it('redacts inside a map or list copied by a reference, and keeps its literal parts', () => {
    const text = [
      'source:',
      '  user: admin',
      '  password: ${env:DB_PASSWORD}',
      'credentials: ${source}',
      'tags: [plain, "${env:DB_PASSWORD}"]',
      'database:',
      '  mode: ${source}',
    ].join('\n');
    const error = validation(text, { DB_PASSWORD: SECRET });
    const redacted = { user: 'admin', password: '<from env:DB_PASSWORD>' };
    expect(error.errors.map((violation) => violation.value)).toEqual([
      redacted,
      redacted,
      ['plain', '<from env:DB_PASSWORD>'],
    ]);
    expect(error.message.split('\n')).toEqual([
      'app.yaml:7:9: database.mode: {"user": "admin", "password": <from env:DB_PASSWORD>} is not one of ["a", "b"]',
      "app.yaml:4:14: credentials: Additional properties are not allowed ('password' was unexpected)",
      'app.yaml:5:1: tags: ["plain", <from env:DB_PASSWORD>] has more than 1 item',
    ]);
  });

  it('shows a literal default as written, and a default from the environment redacted', () => {
    const error = validation(
      'database:\n  password: ${env:NOPE,default=short}\n  url: ${env:NOPE,default=${env:URL}}',
      { URL: SECRET },
    );
    expect(error.errors.map((violation) => violation.value)).toEqual(['short', '<from env:URL>']);
  });

  it('returns the real values when the configuration is valid', () => {
    const settings = Config.fromYaml('database:\n  port: ${env:DB_PORT}\n  password: ${env:P}', {
      env: { DB_PORT: '5432', P: 'x'.repeat(100) },
    }).validate<{ database: { port: number; password: string } }>(schema);
    expect(settings.database).toEqual({ port: 5432, password: 'x'.repeat(100) });
  });
});
