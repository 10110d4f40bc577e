// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
// biome-ignore-all lint/suspicious/noThenProperty: "then" is the JSON Schema keyword in these schemas.
/** Defects found in review: endless `$ref`s, deep nesting, encodings, `.json` configurations, draft-06, patterns, references. */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { Config, ConfigMalformedError, Schema, SchemaError } from '../../src/config/index.js';
import { tooDeepAt } from '../../src/config/nesting.js';
import { thrown } from './helpers.js';

const folder = mkdtempSync(join(tmpdir(), 'restmachine-review-'));

describe('a $ref that refers to itself without end', () => {
  it('is refused when the schema is built, naming the $ref', () => {
    const error = thrown(() => Schema.fromObject({ $ref: '#' }));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toMatch(/"\$ref": "#" at "\/\$ref" refers to itself without end/);
  });

  it('is placed at the $ref in YAML and JSON text', () => {
    const yaml = thrown(() => Schema.fromYaml('properties:\n  x: {$ref: "#/properties/x"}\n'));
    expect(yaml.code).toBe('INVALID_SCHEMA');
    expect(yaml.message).toMatch(
      /^2:7: invalid schema: "\$ref": "#\/properties\/x" at "\/properties\/x\/\$ref" refers to itself without end/,
    );
    const json = thrown(() =>
      Schema.fromJson(
        '{\n  "definitions": {\n    "a": { "allOf": [{ "$ref": "#/definitions/b" }] },\n    "b": { "not": { "$ref": "#/definitions/a" } }\n  },\n  "$ref": "#/definitions/a"\n}',
      ),
    );
    expect(json.code).toBe('INVALID_SCHEMA');
    expect(json.message).toMatch(
      /^\d+:\d+: invalid schema: "\$ref": "#\/definitions\/[ab]" at "\/definitions\/[ab]\/allOf\/0\/\$ref|\/definitions\/[ab]\/not\/\$ref" refers/,
    );
  });

  it('accepts recursion that goes into the value', () => {
    const tree = Schema.fromObject({
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#' } } },
    });
    expect(tree.validate({ children: [{ children: [] }] })).toEqual([]);
    expect(tree.validate({ children: [{ children: 1 }] })).toHaveLength(1);
  });

  it('is one line from the command', async () => {
    const { spawnSync } = await import('node:child_process');
    writeFileSync(join(folder, 'cyc.schema.yaml'), '$ref: "#"\n');
    writeFileSync(join(folder, 'a.yaml'), 'a: 1\n');
    const cli = join(import.meta.dirname, '../../src/config/cli.ts');
    const result = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        cli,
        'validate',
        join(folder, 'a.yaml'),
        '--schema',
        join(folder, 'cyc.schema.yaml'),
      ],
      { encoding: 'utf8' },
    );
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/cyc\.schema\.yaml:1:1: invalid schema: "\$ref": "#"/);
  });
});

describe('deep nesting', () => {
  const depth = 10_000;

  it('Schema.fromJson of deeply nested text is a SchemaError, like fromObject', () => {
    const text = `${'{"items":'.repeat(depth)}{}${'}'.repeat(depth)}`;
    const fromJson = thrown(() => Schema.fromJson(text));
    expect(fromJson).toBeInstanceOf(SchemaError);
    expect(fromJson.code).toBe('INVALID_SCHEMA');
    const fromObject = thrown(() => Schema.fromObject(JSON.parse(text)));
    expect(fromObject.code).toBe('INVALID_SCHEMA');
  });

  it('validating a value nested deeper than the stack allows is MALFORMED', () => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = { a: value };
    const schema = Schema.fromObject({ properties: { a: { $ref: '#' } } });
    const error = thrown(() => Config.fromObject(value).validate(schema));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toMatch(/nested too deeply/);
    expect(thrown(() => Config.fromObject(value).validateRaw(schema)).code).toBe('MALFORMED');
    expect(thrown(() => schema.validate(value)).code).toBe('MALFORMED');
  });

  it('writing into text a value nested deeper than the stack allows is MALFORMED', () => {
    // Far deeper than JSON.stringify can follow on any stack; the value itself is fine.
    let value: unknown = 1;
    for (let i = 0; i < 10 * depth; i++) value = { a: value };
    const config = Config.fromObject({
      x: value,
      y: 'prefix ${x}',
      z: '${x}',
      w: '[${w0}]',
      w0: [1],
    });
    const error = thrown(() => config.get('y'));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toBe(
      'y: "${x}": the value is nested too deeply to be written into text as JSON',
    );
    expect(typeof config.get('z')).toBe('object');
    expect(config.get('w')).toBe('[[1]]');
  });
});

describe('text nested deeper than a parser can follow', () => {
  const flow = (levels: number) => `a: ${'['.repeat(levels)}${']'.repeat(levels)}\n`;
  const block = (levels: number) =>
    `${Array.from({ length: levels }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} 1\n`;

  it('is MALFORMED, placed where the limit is crossed, for YAML, JSON and schemas', () => {
    expect(Config.fromYaml(flow(199)).get('a')).toBeDefined();
    for (const text of [flow(201), block(260), `${'- '.repeat(300)}x`]) {
      const error = thrown(() => Config.fromYaml(text, { filename: 'deep.yaml' }));
      expect(error).toBeInstanceOf(ConfigMalformedError);
      expect(error.message).toMatch(
        /deep\.yaml:\d+:\d+: invalid YAML: the text nests more than 200 levels deep/,
      );
    }
    const json = `${'['.repeat(1000)}${']'.repeat(1000)}`;
    const fromJson = thrown(() => Config.fromYaml(json, { filename: 'deep.json' }));
    expect(fromJson.message).toMatch(
      /^deep\.json:1:200: invalid JSON: the text nests more than 200 levels/,
    );
    expect(thrown(() => Schema.fromJson(`{"items":${json}}`)).code).toBe('INVALID_SCHEMA');
    expect(thrown(() => Schema.fromYaml(flow(300))).code).toBe('INVALID_SCHEMA');
  });

  it('is refused load after load, never aborting the process', () => {
    // Near the stack's end V8 may abort the process rather than throw, which no test in this
    // process could survive: the loads run in a child, whose exit and output are checked.
    const config = new URL('../../src/config/index.ts', import.meta.url).href;
    const script = `
      const { Config } = await import(${JSON.stringify(config)});
      const flow = 'a: ' + '['.repeat(1000) + ']'.repeat(1000);
      const lines = Array.from({ length: 3000 }, (_, i) => ' '.repeat(i) + 'k' + i + ':');
      const block = lines.join(String.fromCharCode(10)) + ' 1';
      const codes = [];
      for (let i = 0; i < 10; i++) {
        for (const text of [flow, block]) {
          try { Config.fromYaml(text); codes.push('accepted'); } catch (error) { codes.push(error.code); }
        }
      }
      console.log(JSON.stringify(codes));
    `;
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(Array(20).fill('MALFORMED'));
  });

  it('built deeper by references is resolved, and printed in messages only so deep', () => {
    // Ten lists 150 deep, each holding the next: 1,500 levels once resolved.
    let text = '';
    for (let i = 0; i < 10; i++) {
      const inner = i < 9 ? `"\${k${i + 1}}"` : '1';
      text += `k${i}: ${'['.repeat(150)}${inner}${']'.repeat(150)}\n`;
    }
    const config = Config.fromYaml(text);
    let value: unknown = config.get('k0');
    let depth = 0;
    while (Array.isArray(value)) {
      value = value[0];
      depth++;
    }
    expect([depth, value]).toEqual([1500, 1]);
    const schema = Schema.fromObject({ properties: { k0: { maxItems: 0 } } });
    const error = thrown(() => config.validate(schema));
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toMatch(/k0: \[{17}\.\.\.\]{17} has more than 0 items/);
  });

  it('is counted never under its depth (property)', () => {
    const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom(1, 'x', 'a [b', '#c', null),
        fc.array(tie('tree'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('k', 'l', '[m'), tie('tree'), { maxKeys: 3 }),
      ),
    }));
    const depthOf = (value: unknown): number =>
      typeof value === 'object' && value !== null
        ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
        : 0;
    fc.assert(
      fc.property(tree, fc.integer({ min: 1, max: 6 }), (value, limit) => {
        const depth = depthOf(value);
        for (const text of [
          JSON.stringify(value),
          JSON.stringify(value, null, 2),
          stringifyYaml(value),
          stringifyYaml(value, { collectionStyle: 'flow' }),
          // A sequence may sit at its key's indentation.
          stringifyYaml(value, { indentSeq: false }),
          stringifyYaml(value, { indentSeq: false, indent: 1 }),
        ]) {
          if (depth > limit) expect(tooDeepAt(text, limit), text).not.toBe(-1);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('encodings', () => {
  it('reads UTF-16 (little and big endian) told apart by the byte order mark', () => {
    const little = join(folder, 'utf16le.yaml');
    writeFileSync(little, Buffer.from('\uFEFFport: 8080\nname: café\n', 'utf16le'));
    expect(Config.fromYamlFile(little).resolve()).toEqual({ port: 8080, name: 'café' });
    const big = join(folder, 'utf16be.yaml');
    writeFileSync(big, Buffer.from('\uFEFFport: 8080\n', 'utf16le').swap16());
    expect(Config.fromYamlFile(big).resolve()).toEqual({ port: 8080 });
    const schema = join(folder, 'utf16.schema.json');
    writeFileSync(schema, Buffer.from('\uFEFF{"type": "integer"}', 'utf16le'));
    expect(Schema.fromFile(schema).validate('x')).toHaveLength(1);
  });

  it('refuses a configuration file that is not UTF-8, naming the file and the place', () => {
    const file = join(folder, 'latin1.yaml');
    writeFileSync(file, Buffer.from('a: 1\nname: caf\xe9\n', 'latin1'));
    const error = thrown(() => Config.fromYamlFile(file));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toBe(
      `${file}:2:10: the file is not UTF-8 text (save it as UTF-8, or as UTF-16 with a byte order mark)`,
    );
    const schemaFile = join(folder, 'latin1.schema.yaml');
    writeFileSync(schemaFile, Buffer.from('description: caf\xe9\n', 'latin1'));
    const schemaError = thrown(() => Schema.fromFile(schemaFile));
    expect(schemaError.message).toMatch(/latin1\.schema\.yaml:1:17: the file is not UTF-8 text/);
  });

  it('refuses a ${file:} that is not text without showing its content', () => {
    writeFileSync(join(folder, 'key.bin'), Buffer.from([0x41, 0xff, 0xfe, 0x42]));
    const config = Config.fromYaml('key: ${file:key.bin}\n', {
      baseDir: folder,
      filename: 'c.yaml',
    });
    const error = thrown(() => config.get('key'));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toMatch(
      /^c\.yaml:1:6: key: "\$\{file:key\.bin\}": file ".*key\.bin" is not text: not valid UTF-8, nor UTF-16 with a byte order mark$/,
    );
    // Without the folder's random name, which may hold an A and a B itself.
    expect(error.message.replace(folder, '')).not.toMatch(/\uFFFD|\u00FF|A.*B/);
    writeFileSync(join(folder, 'secret16.txt'), Buffer.from('\uFEFFs3cret', 'utf16le'));
    expect(Config.fromObject({ s: '${file:secret16.txt}' }, { baseDir: folder }).get('s')).toBe(
      's3cret',
    );
  });

  it('reads a ${file:} without its byte order mark, UTF-8 as UTF-16', () => {
    writeFileSync(join(folder, 'secret8.txt'), '\uFEFFs3cret');
    writeFileSync(join(folder, 'port8.txt'), '\uFEFF5432');
    const config = Config.fromObject(
      { s: '${file:secret8.txt}', port: '${file:port8.txt}', mixed: 'x${file:secret8.txt}' },
      { baseDir: folder },
    );
    expect(config.resolve()).toEqual({ s: 's3cret', port: '5432', mixed: 'xs3cret' });
    const schema = Schema.fromObject({ properties: { port: { type: 'integer' } } });
    expect(config.validate(schema)).toMatchObject({ port: 5432 });
    // Only the first character is the mark: one further on is content.
    writeFileSync(join(folder, 'twice.txt'), '\uFEFF\uFEFFa');
    expect(Config.fromObject({ t: '${file:twice.txt}' }, { baseDir: folder }).get('t')).toBe(
      '\uFEFFa',
    );
  });
});

describe('a .json configuration', () => {
  it('is strict JSON, reported like a .json schema', () => {
    const file = join(folder, 'c.json');
    writeFileSync(file, "{'port': 8080 // default port\n, 'debug': yes,}\n");
    const error = thrown(() => Config.fromYamlFile(file));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toBe(
      `${file}:1:2: invalid JSON: unexpected "'", expected a property name`,
    );
    expect(thrown(() => Schema.fromFile(file)).message).toBe(error.message);
    const comma = thrown(() => Config.fromYaml('{\n  "port": 8080,\n}\n', { filename: 'c.json' }));
    expect(comma.message).toBe(
      'c.json:3:1: invalid JSON: unexpected "}", expected a property name',
    );
    const duplicate = thrown(() => Config.fromYaml('{"a": 1, "a": 2}', { filename: 'c.json' }));
    expect(duplicate.message).toBe('c.json:1:10: invalid JSON: duplicate key "a"');
  });

  it('is JSON with comments and trailing commas when it is a .jsonc file, positions kept', () => {
    const file = join(folder, 'c.jsonc');
    const text = [
      '{',
      '  // The port the server listens on.',
      '  "port": 8080, // default port',
      '  /* Several lines',
      '     of comment, with "quotes", { braces } and a trailing, */',
      '  "hosts": ["a", "b",],',
      '  "url": "http://x//y", "note": "/* kept */",',
      '  "database": { "port": "${env:PORT}", },',
      '}',
      '',
    ].join('\n');
    writeFileSync(file, text);
    expect(Config.fromYamlFile(file, { env: { PORT: '5432' } }).resolve()).toEqual({
      port: 8080,
      hosts: ['a', 'b'],
      url: 'http://x//y',
      note: '/* kept */',
      database: { port: '5432' },
    });
    const schema = Schema.fromObject({
      properties: { database: { properties: { port: { type: 'integer' } } } },
    });
    expect(
      thrown(() => Config.fromYamlFile(file, { env: { PORT: 'abc' } }).validate(schema)).message,
    ).toBe(`${file}:8:25: database.port: <from env:PORT> is not of type "integer"`);
    // What JSONC does not allow either is still refused, where it is.
    const quoted = thrown(() => Config.fromYaml("{\n  // c\n  'a': 1\n}", { filename: 'c.jsonc' }));
    expect(quoted.message).toBe(
      'c.jsonc:3:3: invalid JSON: unexpected "\'", expected a property name',
    );
    const duplicate = thrown(() =>
      Config.fromYaml('{"a": 1, /* again */ "a": 2,}', { filename: 'c.jsonc' }),
    );
    expect(duplicate.message).toBe('c.jsonc:1:22: invalid JSON: duplicate key "a"');
    const doubled = thrown(() => Config.fromYaml('[1,,]', { filename: 'c.jsonc' }));
    expect(doubled).toBeInstanceOf(ConfigMalformedError);
    // A comment never closed would blank the rest of the file: it is refused where it opens.
    const unclosed = thrown(() =>
      Config.fromYaml('{"port": 8080}\n/* forgot to close\n', { filename: 'c.jsonc' }),
    );
    expect(unclosed.message).toBe(
      'c.jsonc:2:1: invalid JSON: a /* comment is never closed with */',
    );
    // A schema file reads the same way.
    const schemaFile = join(folder, 'schema.jsonc');
    writeFileSync(schemaFile, '{\n  // Ports are numbers.\n  "type": "integer", /* c */\n}\n');
    expect(Schema.fromFile(schemaFile).validate('x')).toHaveLength(1);
    writeFileSync(schemaFile, '{"type": "integer" /* open\n}\n');
    expect(thrown(() => Schema.fromFile(schemaFile)).message).toMatch(
      /:1:20: invalid JSON: a \/\* comment is never closed/,
    );
    writeFileSync(schemaFile, '{\n  // c\n  "type": "integer",\n  "type": "string"\n}\n');
    expect(thrown(() => Schema.fromFile(schemaFile)).message).toMatch(
      /:4:3: .*duplicate key "type"/,
    );
  });

  it('reads any JSON document with comments and trailing commas added as the document (property)', () => {
    // Strings without `$`, which would be interpolations; comments after every line, a block
    // comment before every line, a trailing comma after every last member.
    const value = fc.jsonValue().filter((v) => !JSON.stringify(v).includes('$'));
    fc.assert(
      fc.property(value, (document) => {
        const lines = JSON.stringify(document, null, 2).split('\n');
        const jsonc = lines
          .map((line, i) => {
            const next = lines[i + 1]?.trim() ?? '';
            const closes = /^[}\]]/.test(next) && !/[[{]$/.test(line);
            return `/* ${i} */ ${line}${closes ? ',' : ''} // "${i}", {`;
          })
          .join('\n');
        expect(Config.fromYaml(jsonc, { filename: 'c.jsonc' }).resolve()).toEqual(
          JSON.parse(JSON.stringify(document)),
        );
      }),
    );
  });

  it('keeps positions for validation messages, interpolations and a byte order mark', () => {
    const file = join(folder, 'ok.json');
    writeFileSync(file, '\uFEFF{\n  "database": {\n    "port": "${env:PORT}"\n  }\n}\n');
    const schema = Schema.fromObject({
      properties: { database: { properties: { port: { type: 'integer' } } } },
    });
    const config = Config.fromYamlFile(file, { env: { PORT: 'abc' } });
    expect(thrown(() => config.validate(schema)).message).toBe(
      `${file}:3:13: database.port: <from env:PORT> is not of type "integer"`,
    );
    expect(Config.fromYamlFile(file, { env: { PORT: '1' } }).validate(schema)).toEqual({
      database: { port: 1 },
    });
  });
});

describe('old Mac line breaks (a bare CR)', () => {
  // RFC 8259 §2 counts CR as whitespace, YAML 1.2 §5.4 as a line break.
  it('read in JSON as JSON.parse reads them', () => {
    for (const text of [
      '[1,\r2]',
      '{"a":\r"x"}',
      '{"a": 1,\r"b": 2}',
      '{\r  "a": {\r    "c": "d"\r  }\r}\r',
    ]) {
      expect(Config.fromYaml(text, { filename: 'c.json' }).resolve()).toEqual(JSON.parse(text));
      expect(Config.fromYaml(text, { filename: 'c.jsonc' }).resolve()).toEqual(JSON.parse(text));
    }
    expect(Config.fromYaml('{"a": 1 // one\r, "b": 2}', { filename: 'c.jsonc' }).resolve()).toEqual(
      { a: 1, b: 2 },
    );
    // A raw CR inside a JSON string is still refused, where it is.
    expect(thrown(() => Config.fromYaml('{\r"a": "x\ry"}', { filename: 'c.json' })).message).toBe(
      'c.json:2:8: invalid JSON: control character in string',
    );
  });

  it('break YAML lines, in plain, quoted and block scalars as an LF does', () => {
    const text = 'a: 1\rb: "x\r  y"\rc: |\r  one\r  two\rd: [1,\r  2]\r';
    expect(Config.fromYaml(text).resolve()).toEqual({ a: 1, b: 'x y', c: 'one\ntwo\n', d: [1, 2] });
    expect(Schema.fromYaml('type: object\rrequired: [a]\r').validate({})).toHaveLength(1);
    // The nesting check, which runs before the parser, sees those lines too.
    const deep = Array.from({ length: 260 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\r');
    expect(thrown(() => Config.fromYaml(`${deep} 1`)).message).toMatch(/nests more than 200/);
    const broken = thrown(() => Config.fromYaml('a: 1\rb: [\r', { filename: 'c.yaml' }));
    expect(broken.message).toBe(
      thrown(() => Config.fromYaml('a: 1\nb: [\n', { filename: 'c.yaml' })).message,
    );
  });

  it('give the values and positions LF and CR LF give (property)', () => {
    // Every scalar breaks the schema, so each one's line and column is in the message.
    const schema = Schema.fromObject({
      $ref: '#/definitions/containers',
      definitions: {
        containers: {
          type: ['object', 'array'],
          additionalProperties: { $ref: '#/definitions/containers' },
          items: { $ref: '#/definitions/containers' },
        },
      },
    });
    const value = fc.jsonValue().filter((v) => !/[$\r]/.test(JSON.stringify(v)));
    const read = (text: string, filename: string) => {
      const config = Config.fromYaml(text, { filename });
      try {
        return [config.resolve(), config.validate(schema)];
      } catch (error) {
        return [config.resolve(), (error as Error).message];
      }
    };
    fc.assert(
      fc.property(value, fc.boolean(), (document, asJson) => {
        const text = asJson ? JSON.stringify(document, null, 2) : stringifyYaml(document);
        const filename = asJson ? 'c.json' : 'c.yaml';
        const withLf = read(text, filename);
        // As JSON text: YAML keeps a -0 that JSON writes as 0.
        expect(JSON.stringify(withLf[0])).toBe(JSON.stringify(document));
        expect(read(text.replaceAll('\n', '\r'), filename)).toEqual(withLf);
        expect(read(text.replaceAll('\n', '\r\n'), filename)).toEqual(withLf);
      }),
    );
  });
});

describe('a byte order mark at the start of the text', () => {
  const schema = Schema.fromObject({ properties: { port: { maximum: 10 } } });
  const message = (action: () => unknown) => thrown(action).message;

  it('is no column: line 1 positions are those of the text without it', () => {
    for (const [filename, text] of [
      ['c.yaml', 'port: 70000\n'],
      ['c.json', '{"port": 70000}'],
      ['c.jsonc', '/* c */ {"port": 70000,}'],
    ] as const) {
      const plain = message(() => Config.fromYaml(text, { filename }).validate(schema));
      expect(plain).toMatch(/^c\.jsonc?:1:\d+: |^c\.yaml:1:7: /);
      expect(message(() => Config.fromYaml(`\uFEFF${text}`, { filename }).validate(schema))).toBe(
        plain,
      );
    }
    for (const [filename, text] of [
      ['c.json', '{"port": 1,}'],
      ['c.jsonc', '{"port": 1 /* open'],
      ['c.yaml', 'port: [1'],
    ] as const) {
      const plain = message(() => Config.fromYaml(text, { filename }));
      expect(message(() => Config.fromYaml(`\uFEFF${text}`, { filename }))).toBe(plain);
    }
    const file = join(folder, 'bom.schema.json');
    writeFileSync(file, '\uFEFF{"type": "integer",}');
    expect(message(() => Schema.fromFile(file))).toBe(
      `${file}:1:20: invalid JSON: unexpected "}", expected a property name`,
    );
    expect(message(() => Schema.fromJson('\uFEFF{"type": "integer",}'))).toBe(
      '1:20: invalid JSON: unexpected "}", expected a property name',
    );
  });

  it('changes no value and no position (property)', () => {
    const value = fc.jsonValue().filter((v) => !JSON.stringify(v).includes('$'));
    const read = (text: string, filename: string) => {
      try {
        return Config.fromYaml(text, { filename }).validate(Schema.fromObject({ type: 'object' }));
      } catch (error) {
        return (error as Error).message;
      }
    };
    fc.assert(
      fc.property(value, fc.constantFrom('c.json', 'c.yaml'), (document, filename) => {
        const text = filename === 'c.json' ? JSON.stringify(document) : stringifyYaml(document);
        expect(read(`\uFEFF${text}`, filename)).toEqual(read(text, filename));
      }),
    );
  });
});

describe('draft-06', () => {
  it('ignores if/then/else, which draft-06 does not have', () => {
    const draft06 = Schema.fromObject({
      $schema: 'http://json-schema.org/draft-06/schema#',
      if: { type: 'integer' },
      then: { maximum: 3 },
      else: { type: 'string' },
    });
    expect(draft06.validate(5)).toEqual([]);
    expect(draft06.validate(true)).toEqual([]);
    expect(() => Config.fromYaml('5\n').validate(draft06)).not.toThrow();
    expect(() => Config.fromYaml('5\n').validateRaw(draft06)).not.toThrow();
    const draft07 = Schema.fromObject({ if: { type: 'integer' }, then: { maximum: 3 } });
    expect(draft07.validate(5)).toHaveLength(1);
  });

  it('still follows a $ref into an if', () => {
    const schema = Schema.fromObject({
      $schema: 'http://json-schema.org/draft-06/schema#',
      if: { type: 'integer' },
      properties: { a: { $ref: '#/if' } },
    });
    expect(schema.validate({ a: 'x' })).toHaveLength(1);
  });
});

describe('a patternProperties name that is not a regular expression', () => {
  it('is refused when the schema is built, at that name', () => {
    const error = thrown(() => Schema.fromYaml('patternProperties:\n  "([": {}\n'));
    expect(error).toBeInstanceOf(SchemaError);
    expect(error.message).toBe(
      '2:3: invalid schema: Invalid regular expression: /([/u: Unterminated character class',
    );
    const json = thrown(() =>
      Schema.fromJson(
        '{"properties": {"a": {"patternProperties": {"ok": {}, "(?<": {"type": "string"}}}}}',
      ),
    );
    expect(json.message).toMatch(/^1:55: invalid schema: Invalid regular expression: \/\(\?</);
  });
});

describe('references in another draft', () => {
  const common = { definitions: { port: { type: 'integer' } } };
  const newer = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' };

  it('one nothing refers to does not break the schema', () => {
    const schema = Schema.fromObject(
      { properties: { port: { $ref: 'https://example.com/common.json#/definitions/port' } } },
      {
        references: {
          'https://example.com/common.json': common,
          'https://example.com/new.json': newer,
        },
      },
    );
    expect(schema.validate({ port: 'x' })).toHaveLength(1);
    expect(() => Config.fromYaml('port: x\n').validateRaw(schema)).toThrow(/is not of type/);
  });

  it('one that is referred to is named in the error', () => {
    const error = thrown(() =>
      Schema.fromYaml('properties:\n  name: { $ref: "https://example.com/new.json" }\n', {
        references: { 'https://example.com/new.json': newer },
      }),
    );
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toBe(
      `2:11: invalid schema: the reference "https://example.com/new.json" is written in 2020-12 and this schema in draft-07: a $ref into another draft's document is not supported`,
    );
  });
});

describe('YAML tags', () => {
  it('refuses YAML 1.1 collection tags, which the core schema does not have', () => {
    for (const [text, tag] of [
      ['a: !!set {x, y}', '!!set'],
      ['a: !!omap [x: 1, y: 2]', '!!omap'],
      ['a: !!pairs [x: 1, x: 2]', '!!pairs'],
    ]) {
      const error = thrown(() => Config.fromYaml(`${text}\n`, { filename: 'c.yaml' }));
      expect(error.message).toBe(
        `c.yaml:1:4: invalid YAML: unknown tag ${tag} (only the core schema's tags, such as !!str, are understood)`,
      );
    }
  });

  it('reads !!float as YAML 1.2.2 core schema does: an integer fits', () => {
    expect(Config.fromYaml('a: !!float 1\nb: !!float -2e3\nc: !!float 1.5\n').resolve()).toEqual({
      a: 1,
      b: -2000,
      c: 1.5,
    });
    expect(thrown(() => Config.fromYaml('a: !!float x\n')).message).toBe(
      '1:4: invalid YAML: the value does not fit its tag !!float',
    );
  });
});
