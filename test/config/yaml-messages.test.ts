/**
 * YAML the loader refuses, with a message a configuration's author can act on: several
 * documents in one file, and tags it does not understand (a CloudFormation-style `!Ref` must not
 * silently become plain text).
 */

import { describe, expect, it } from 'vitest';
import { Config, ConfigMalformedError, Schema, SchemaError } from '../../src/config/index.js';
import { thrown } from './helpers.js';

function loadError(text: string, filename = 'config.yaml') {
  return thrown(() => Config.fromYaml(text, { filename }));
}

describe('a file with several YAML documents', () => {
  it('is MALFORMED at the second document, saying a file holds one', () => {
    const error = loadError('a: 1\n---\nb: 2\n');
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error).toMatchObject({ code: 'MALFORMED', file: 'config.yaml', line: 2, column: 1 });
    expect(error.message).toBe(
      'config.yaml:2:1: invalid YAML: more than one document ("---" at line 2); a configuration or schema file holds one',
    );
  });

  it('names the line of a document that starts after "..." without "---"', () => {
    expect(loadError('---\na: 1\n...\nb: 2\n').message).toBe(
      'config.yaml:4:1: invalid YAML: more than one document (the second starts at line 4); a configuration or schema file holds one',
    );
  });

  it('says JSON for a .json file (read as strict JSON), and the same for a schema', () => {
    expect(loadError('{"a": 1}\n---\n{}\n', 'config.json').message).toBe(
      'config.json:2:1: invalid JSON: unexpected "-" after the end of the value',
    );
    const error = thrown(() => Schema.fromYaml('type: object\n---\ntype: string\n'));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toBe(
      '2:1: invalid YAML: more than one document ("---" at line 2); a configuration or schema file holds one',
    );
  });

  it('still reads one document that starts with "---" or ends with "..."', () => {
    expect(Config.fromYaml('---\na: 1\n...\n').resolve()).toEqual({ a: 1 });
  });
});

describe('YAML tags', () => {
  it('refuses an unknown tag where it is written, instead of dropping it', () => {
    const error = loadError('bucket: !Ref MyBucket\n');
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error).toMatchObject({ code: 'MALFORMED', line: 1, column: 9 });
    expect(error.message).toBe(
      "config.yaml:1:9: invalid YAML: unknown tag !Ref (only the core schema's tags, such as !!str, are understood)",
    );
  });

  it.each([
    ['on a list', 'name:\n  arn: !GetAtt\n    - Bucket\n    - Arn\n', '2:8', '!GetAtt'],
    ['on a map', 'policy: !Sub {a: 1}\n', '1:9', '!Sub'],
    ['on a key', '? !Ref key\n: value\n', '1:3', '!Ref'],
    ['declared by %TAG', '%TAG !e! tag:example.com,2000:\n---\nu: !e!x 1\n', '3:4', '!e!x'],
    ['written in full', 'u: !<tag:example.com,2000:x> 1\n', '1:4', '!<tag:example.com,2000:x>'],
  ])('refuses an unknown tag %s', (_where, text, place, tag) => {
    expect(loadError(text).message).toBe(
      `config.yaml:${place}: invalid YAML: unknown tag ${tag} (only the core schema's tags, such as !!str, are understood)`,
    );
  });

  it('refuses a core tag the value does not fit, rather than reading it as text', () => {
    expect(loadError('debug: !!bool yes\n').message).toBe(
      'config.yaml:1:8: invalid YAML: the value does not fit its tag !!bool',
    );
    expect(loadError('port: !<tag:yaml.org,2002:int> x\n').message).toBe(
      'config.yaml:1:7: invalid YAML: the value does not fit its tag !<tag:yaml.org,2002:int>',
    );
  });

  it("keeps the core schema's tags and the non-specific tag", () => {
    expect(
      Config.fromYaml('a: !!str 5\nb: !!int 7\nc: ! 12\nd: !!null\ne: !!seq [1]\n').resolve(),
    ).toEqual({ a: '5', b: 7, c: '12', d: null, e: [1] });
  });

  it('refuses an unknown tag in a schema too', () => {
    const error = thrown(() => Schema.fromYaml('type: !Ref Type\n'));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toBe(
      "1:7: invalid YAML: unknown tag !Ref (only the core schema's tags, such as !!str, are understood)",
    );
  });
});
