// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * A misspelt option name is a TypeError naming the options there are, never an option silently
 * left at its default (a misspelt `env` would read the process's environment instead).
 */
import { describe, expect, it } from 'vitest';
import { Config, Schema } from '../../src/config/index.js';

describe('configuration options', () => {
  it('are refused when nobody knows their name', () => {
    expect(() => Config.fromObject({ a: '${env:A}' }, { enviroment: {} } as never)).toThrow(
      'Config.fromObject(): unknown option "enviroment"; the options are baseDir, env, maxValueBytes, maxTotalBytes',
    );
    expect(() => Config.fromYaml('a: 1', { fileName: 'x.yaml' } as never)).toThrow(
      /unknown option "fileName"; the options are baseDir, env, maxValueBytes, maxTotalBytes, filename/,
    );
    expect(() => Config.fromYamlFile('missing.yaml', { filename: 'x' } as never)).toThrow(
      /Config\.fromYamlFile\(\): unknown option "filename"/,
    );
    const schema = Schema.fromObject({ type: 'object' });
    expect(() => Config.fromObject({}).validate(schema, { applyDefault: true } as never)).toThrow(
      /validate\(\): unknown option "applyDefault"; the options are applyDefaults/,
    );
    expect(() => Schema.fromObject({ type: 'object' }, { refs: {} } as never)).toThrow(
      /Schema: unknown option "refs"; the options are references/,
    );
  });

  it('work as before when spelt right', () => {
    const config = Config.fromYaml('port: ${env:PORT}', {
      env: { PORT: '8080' },
      filename: 'x.yaml',
    });
    const schema = Schema.fromObject(
      { type: 'object', properties: { port: { type: 'integer' }, host: { default: 'localhost' } } },
      { references: {} },
    );
    expect(config.validate(schema, { applyDefaults: true })).toEqual({
      port: 8080,
      host: 'localhost',
    });
  });
});
