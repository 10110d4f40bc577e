// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/** Interpolation: every form docs/configuration.md describes, typed references, each error kind, cycles. */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Config,
  ConfigCircularReferenceError,
  ConfigMalformedError,
  ConfigNotFoundError,
  Schema,
} from '../../src/config/index.js';
import { thrown } from './helpers.js';

const fixtures = join(import.meta.dirname, 'fixtures');

function yaml(text: string, env: Record<string, string> = {}) {
  return Config.fromYaml(text, { filename: 'app.yaml', env });
}

describe('environment variables', () => {
  it('reads ${env:NAME} as text', () => {
    expect(yaml('host: ${env:HOST}', { HOST: 'db.local' }).get('host')).toBe('db.local');
    expect(yaml('port: ${env:PORT}', { PORT: '5432' }).get('port')).toBe('5432');
  });

  it('uses the default when the variable is missing, and the variable when it is set', () => {
    const text = 'host: ${env:HOST,default=localhost}';
    expect(yaml(text).get('host')).toBe('localhost');
    expect(yaml(text, { HOST: 'db' }).get('host')).toBe('db');
  });

  it('takes an empty default and a default with commas and spaces', () => {
    expect(yaml('a: "${env:X,default=}"').get('a')).toBe('');
    expect(yaml('a: "${env:X,default=a, b c}"').get('a')).toBe('a, b c');
  });

  it('keeps braces that pair up inside a default, and reads \\{ and \\} there as literal', () => {
    const text = [
      `a: '\${env:A,default={"k":1}}'`,
      `b: '\${env:A,default={"k":{"l":[1]}}}-suffix'`,
      `c: '\${env:A,default=a\\}b}'`,
      `d: '\${env:A,default=\\{\\{x}'`,
    ].join('\n');
    expect(yaml(text).resolve()).toEqual({
      a: '{"k":1}',
      b: '{"k":{"l":[1]}}-suffix',
      c: 'a}b',
      d: '{{x',
    });
    // Set, the variable replaces the whole default: nothing of it is left behind.
    expect(yaml(text, { A: 'v' }).resolve()).toEqual({ a: 'v', b: 'v-suffix', c: 'v', d: 'v' });
    // A brace opened in the default and never closed leaves the interpolation open.
    expect(thrown(() => yaml(`a: '\${env:A,default={}'`).resolve()).message).toMatch(
      /malformed interpolation: unexpected end of input/,
    );
  });

  it('nests interpolations in defaults, followed by more text', () => {
    const text = [
      'a: ${env:A,default=${env:B}}',
      'b: ${env:A,default=${env:B,default=bee}-suffix}',
      'c: "${env:A,default=${env:B}:${env:C,default=3}}/path"',
      'd: ${env:A,default=${.b}}',
    ].join('\n');
    expect(yaml(text, { B: 'from-b' }).resolve()).toEqual({
      a: 'from-b',
      b: 'from-b-suffix',
      c: 'from-b:3/path',
      d: 'from-b-suffix',
    });
    expect(yaml(text, { A: 'x', B: 'y' }).resolve()).toEqual({
      a: 'x',
      b: 'x',
      c: 'x/path',
      d: 'x',
    });
  });

  it('reads process.env at each resolution when no env is given', () => {
    const config = Config.fromYaml('v: ${env:RESTMACHINE_TEST_VALUE,default=unset}');
    delete process.env.RESTMACHINE_TEST_VALUE;
    expect(config.get('v')).toBe('unset');
    process.env.RESTMACHINE_TEST_VALUE = 'set';
    try {
      expect(config.get('v')).toBe('set');
    } finally {
      delete process.env.RESTMACHINE_TEST_VALUE;
    }
  });

  it('names the key, the expression and the variable, with a hint, when it is missing', () => {
    const error = thrown(() => yaml('database:\n  port: ${env:DB_PORT}').resolve());
    expect(error).toBeInstanceOf(ConfigNotFoundError);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe(
      'app.yaml:2:9: database.port: ${env:DB_PORT}: environment variable "DB_PORT" not found (set it, or add a default: ${env:DB_PORT,default=...})',
    );
    expect(error).toMatchObject({
      key: 'database.port',
      expression: '${env:DB_PORT}',
      file: 'app.yaml',
      line: 2,
      column: 9,
    });
  });

  it('reports a missing variable inside a default', () => {
    const error = thrown(() => yaml('a: ${env:A,default=${env:B}}').get('a'));
    expect(error.message).toContain('a: ${env:B}: environment variable "B" not found');
  });
});

describe('references', () => {
  const text = [
    'database:',
    '  host: db.internal',
    '  port: 5432',
    '  url: "postgres://${.host}:${.port}/app"',
    '  tls: null',
    '  ssl: true',
    'servers:',
    '  - name: a',
    '    port: ${database.port}',
    '    sibling: ${.name}',
    '    parent: ${..[1].name}',
    '    top: ${...database.host}',
    '  - name: b',
    '    port: ${servers[0].port}',
    'first: ${servers[0]}',
    'dotted: ${servers.1.name}',
    'typed:',
    '  port: ${database.port}',
    '  tls: ${database.tls}',
    '  ssl: ${database.ssl}',
    '  both: "${database.port}${database.ssl}"',
  ].join('\n');
  const config = yaml(text);

  it('resolves absolute references, with list indices', () => {
    expect(config.get('servers[0].port')).toBe(5432);
    expect(config.get('servers[1].port')).toBe(5432);
    expect(config.get('dotted')).toBe('b');
  });

  it('resolves relative references: one dot for a sibling, two for the parent', () => {
    expect(config.get('database.url')).toBe('postgres://db.internal:5432/app');
    expect(config.get('servers[0].sibling')).toBe('a');
    expect(config.get('servers[0].parent')).toBe('b');
    expect(yaml('a:\n  b:\n    c: ${..x}\n  x: 1').get('a.b.c')).toBe(1);
    expect(yaml('a:\n  b:\n    c: ${...y}\ny: 2').get('a.b.c')).toBe(2);
  });

  it('keeps the type of a value that is wholly one reference', () => {
    expect(config.get('typed')).toEqual({ port: 5432, tls: null, ssl: true, both: '5432true' });
  });

  it('copies a referenced object, so the two places never share it', () => {
    const resolved = config.resolve<{
      first: { name: string };
      servers: Array<{ name: string }>;
    }>();
    expect(resolved.first).toEqual({
      name: 'a',
      port: 5432,
      sibling: 'a',
      parent: 'b',
      top: 'db.internal',
    });
    resolved.first.name = 'changed';
    expect(resolved.servers[0]?.name).toBe('a');
  });

  it('follows a path into a value that itself came from a reference', () => {
    const chained = yaml('a: ${b}\nb: ${c}\nc: {d: [10, {e: 20}]}\nx: ${a.d[1].e}\ny: ${b.d.0}');
    expect(chained.get('x')).toBe(20);
    expect(chained.get('y')).toBe(10);
    expect(chained.get('a.d[1].e')).toBe(20);
  });

  it('names the path that is missing', () => {
    const error = thrown(() => yaml('a:\n  b: 1\nc: ${a.x}').get('c'));
    expect(error).toBeInstanceOf(ConfigNotFoundError);
    expect(error.message).toBe('app.yaml:3:4: c: ${a.x}: path "a.x" not found');
  });

  it('gives the absolute path of a missing relative reference', () => {
    const error = thrown(() => yaml('a:\n  b: ${.nope}').get('a.b'));
    expect(error.message).toBe('app.yaml:2:6: a.b: ${.nope}: path "a.nope" not found');
  });

  it('names any key in quotes, as get() does: ":", "," and "}" included', () => {
    const config = Config.fromObject({
      m: { 'http://x': 1, 'a,b}c': 2, 'q"}': 3, 'a:b': 4 },
      'root:key': 5,
      x: '${m["http://x"]}',
      y: 'v${m["a,b}c"]}',
      z: '${m["q\\"}"],default=none}',
      w: '${m.a:b}',
      r: '${["root:key"]}',
      d: '${env:A,default=${m["a,b}c"]}}',
    });
    expect(config.resolve()).toMatchObject({ x: 1, y: 'v2', z: 3, w: 4, r: 5, d: 2 });
    // A ":" before any "." or "[" still names a resolver, and a quote must close.
    expect(thrown(() => Config.fromObject({ x: '${vault:x}' }).get('x')).message).toMatch(
      /unknown resolver "vault"/,
    );
    expect(thrown(() => Config.fromObject({ x: '${m["a}' }).get('x')).message).toMatch(
      /unexpected end of input/,
    );
  });

  it('reads back every key written quoted in a reference (fast-check)', () => {
    const punctuation = fc.constantFrom(':', ',', '{', '}', '"', '\\', '$', '.', '[', ']', 'a');
    const keys = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({ unit: punctuation, maxLength: 12 }),
    );
    fc.assert(
      fc.property(keys, (key) => {
        const config = Config.fromObject({
          m: { [key]: 'found' },
          x: `\${m[${JSON.stringify(key)}]}`,
        });
        expect(config.get('x')).toBe('found');
        expect(config.get(`m[${JSON.stringify(key)}]`)).toBe('found');
      }),
      { numRuns: 500 },
    );
  });

  it('uses a default when a referenced path is missing', () => {
    expect(yaml('a: ${b.c,default=fallback}').get('a')).toBe('fallback');
  });

  it('refuses to climb above the root as a mistake in the text, whatever the default', () => {
    for (const text of ['a: ${...b}', 'a: ${...b,default=d}']) {
      const error = thrown(() => yaml(text).get('a'));
      expect(error, text).toBeInstanceOf(ConfigMalformedError);
      expect(error.message, text).toContain('3 dots go above the root of the configuration');
    }
    // A path within the document that is not there takes the default.
    expect(yaml('x:\n  a: ${..nope,default=d}').get('x.a')).toBe('d');
  });

  it('resolves lazily: a broken value does not stop reading another', () => {
    const partial = yaml('good: ${.other}\nother: 1\nbad: ${env:MISSING}\nworse: "${oops"');
    expect(partial.get('good')).toBe(1);
    expect(() => partial.resolve()).toThrow(ConfigNotFoundError);
  });
});

describe('cycles', () => {
  it('reports the whole chain with ASCII arrows', () => {
    const error = thrown(() => yaml('a: ${b}\nb: ${c}\nc: ${a}').resolve());
    expect(error).toBeInstanceOf(ConfigCircularReferenceError);
    expect(error.code).toBe('CIRCULAR_REFERENCE');
    expect(error.message).toBe('app.yaml:1:4: a: ${b}: circular reference: a -> b -> c -> a');
    expect((error as ConfigCircularReferenceError).chain).toEqual(['a', 'b', 'c', 'a']);
  });

  it('reports a value that refers to itself', () => {
    const error = thrown(() => yaml('a: ${a}').get('a'));
    expect(error.message).toBe('app.yaml:1:4: a: ${a}: circular reference: a -> a');
  });

  it('reports a value that refers to the object containing it', () => {
    const error = thrown(() => yaml('a:\n  b: ${a}').get('a.b'));
    expect((error as ConfigCircularReferenceError).chain).toEqual(['a.b', 'a', 'a.b']);
  });

  it('finds a cycle through a default', () => {
    const error = thrown(() => yaml('a: ${env:NOPE,default=${b}}\nb: ${a}').get('b'));
    expect((error as ConfigCircularReferenceError).chain).toEqual(['b', 'a', 'b']);
  });

  it('follows a path through a reference to a map that refers back into it: no cycle', () => {
    expect(yaml('a: ${b}\nb:\n  x: 1\n  y: ${a.x}\n').resolve()).toEqual({
      a: { x: 1, y: 1 },
      b: { x: 1, y: 1 },
    });
    const text = 'defaults:\n  host: h\n  url: "http://${current.host}"\ncurrent: ${defaults}\n';
    expect(yaml(text).get('defaults.url')).toBe('http://h');
    // Through a chain of references, relative ones and list indexes too.
    const chain = 'a: ${b}\nb: ${.c}\nc:\n  - {x: 1, y: "${a[0].x}"}\n';
    expect(yaml(chain).get('c[0].y')).toBe(1);
    // A default still applies when the path is not there, and real cycles are still found.
    expect(yaml('a: ${nope,default=x}\nb: ${a.k,default=d}\n').get('b')).toBe('d');
    const cycle = thrown(() => yaml('a: ${b}\nb:\n  x: ${a.x}\n').resolve());
    // b.x is a.x, which is b.x itself.
    expect(cycle.message).toBe('app.yaml:3:6: b.x: ${a.x}: circular reference: b.x -> b.x');
    const round = thrown(() => yaml('a: ${b}\nb: ${a}\nc: ${a.x}\n').get('c'));
    expect((round as ConfigCircularReferenceError).chain).toEqual(['a', 'b', 'a']);
  });

  it('resolves a chain of 10,000 references without overflowing the stack', () => {
    const lines = Array.from({ length: 10_000 }, (_, index) => `k${index}: \${k${index + 1}}`);
    lines.push('k10000: 42');
    const config = Config.fromYaml(lines.join('\n'));
    expect(config.get('k0')).toBe(42);
    const resolved = config.resolve<Record<string, number>>();
    expect(resolved.k0).toBe(42);
    expect(resolved.k5000).toBe(42);
  });

  it('reports a cycle of 10,000 references without overflowing the stack', () => {
    const lines = Array.from(
      { length: 10_000 },
      (_, index) => `k${index}: \${k${(index + 1) % 10_000}}`,
    );
    const error = thrown(() => Config.fromYaml(lines.join('\n')).get('k0'));
    expect(error).toBeInstanceOf(ConfigCircularReferenceError);
    const { chain } = error as ConfigCircularReferenceError;
    expect(chain).toHaveLength(10_001);
    expect(chain[0]).toBe('k0');
    expect(chain.at(-1)).toBe('k0');
  });
});

describe('files', () => {
  it('reads ${file:path} relative to the configuration file', () => {
    const config = Config.fromYamlFile(join(fixtures, 'files', 'app.yaml'));
    expect(config.resolve()).toEqual({
      password: 'secret-from-file',
      port: '8443',
      nested: 'secret-from-file',
    });
  });

  it('reads relative to baseDir for text, and takes absolute paths', () => {
    const folder = join(fixtures, 'files');
    expect(Config.fromYaml('p: ${file:secret.txt}', { baseDir: folder }).get('p')).toBe(
      'secret-from-file',
    );
    expect(Config.fromObject({ p: `\${file:${join(folder, 'port.txt')}}` }).get('p')).toBe('8443');
  });

  it('keeps the file text exactly, newlines included', () => {
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-config-'));
    writeFileSync(join(folder, 'key.pem'), 'line 1\nline 2\n');
    expect(Config.fromYaml('k: ${file:key.pem}', { baseDir: folder }).get('k')).toBe(
      'line 1\nline 2\n',
    );
  });

  it('reports a missing file with its full path, or uses the default', () => {
    const folder = join(fixtures, 'files');
    const error = thrown(() =>
      Config.fromYaml('k: ${file:nope.txt}', { baseDir: folder, filename: 'x.yaml' }).get('k'),
    );
    expect(error).toBeInstanceOf(ConfigNotFoundError);
    expect(error.message).toBe(
      `x.yaml:1:4: k: \${file:nope.txt}: file ${JSON.stringify(join(folder, 'nope.txt'))} not found`,
    );
    expect(Config.fromYaml('k: ${file:nope.txt,default=none}', { baseDir: folder }).get('k')).toBe(
      'none',
    );
  });
});

describe('escapes and mixed text', () => {
  const withV = (text: string) => yaml(text, { V: 'v' });

  it('reads \\${ as a literal ${', () => {
    const config = withV('a: \\${env:HOME}\nb: "cost: \\\\${5}"\nc: pre \\${x} ${env:V}');
    expect(config.resolve()).toEqual({ a: '${env:HOME}', b: 'cost: ${5}', c: 'pre ${x} v' });
  });

  it('leaves other backslashes and lone dollars alone', () => {
    expect(withV('a: C:\\dir\\$HOME $ {x} $').get('a')).toBe('C:\\dir\\$HOME $ {x} $');
  });

  it('turns mixed text into a string, printing non-strings as JSON', () => {
    const config = withV('n: 5\nl: [1, "x"]\nz: null\nm: "${n}/${l}/${z}/${env:V}"');
    expect(config.get('m')).toBe('5/[1,"x"]/null/v');
  });
});

describe('malformed expressions', () => {
  it.each([
    ['${abc', 'unexpected end of input at character 6 of the value'],
    ['x ${env:A,default=${env:B}', 'unexpected end of input at character 27 of the value'],
    ['${}', 'empty interpolation at character 1 of the value'],
    ['ab${}', 'empty interpolation at character 3 of the value'],
    ['${env:}', 'empty variable name at character 7 of the value'],
    ['${file:}', 'empty file path at character 8 of the value'],
    [
      '${vault:x}',
      'unknown resolver "vault" (expected "env" or "file") at character 3 of the value',
    ],
    [
      '${env:A,fallback=1}',
      'unknown option "fallback" (only "default=" is supported) at character 9 of the value',
    ],
    ['${a..b}', 'invalid reference: unexpected "." at character 5 of the value'],
    ['${a[x]}', 'invalid reference: expected an array index at character 5 of the value'],
    ['${.}', 'expected a key after "." at character 4 of the value'],
  ])('%s: %s', (text, reason) => {
    const error = thrown(() => Config.fromObject({ key: text }).get('key'));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.code).toBe('MALFORMED');
    expect(error.message).toBe(`key: ${JSON.stringify(text)}: malformed interpolation: ${reason}`);
    expect((error as ConfigMalformedError).offset).toBe(
      Number(/character (\d+)/.exec(reason)?.[1]),
    );
  });

  it('says the position is within the decoded value, which is not a column of the file', () => {
    // YAML decodes "\t\t" (4 characters in the file) to 2, and joins a block's lines.
    const escaped = thrown(() =>
      Config.fromYaml('a: "\\t\\t${}"\n', { filename: 'c.yaml' }).get('a'),
    );
    expect(escaped.message).toBe(
      'c.yaml:1:4: a: "\\t\\t${}": malformed interpolation: empty interpolation at character 3 of the value',
    );
    const block = thrown(() =>
      Config.fromYaml('a: |\n  line one\n  x ${}\n', { filename: 'c.yaml' }).get('a'),
    );
    expect(block.message).toMatch(/empty interpolation at character 12 of the value$/);
  });

  it('puts the file position in front', () => {
    const error = thrown(() =>
      Config.fromYaml('a:\n  url: "${abc"', { filename: 'c.yaml' }).resolve(),
    );
    expect(error.message).toBe(
      'c.yaml:2:8: a.url: "${abc": malformed interpolation: unexpected end of input at character 6 of the value',
    );
  });
});

describe('get and resolve', () => {
  const config = Config.fromObject({ a: { b: [{ c: 1 }, { 'd.e': 2 }] }, list: ['x'] });

  it('reads dotted paths with indices, quoted keys and the root', () => {
    expect(config.get('a.b[0].c')).toBe(1);
    expect(config.get('a.b[1]["d.e"]')).toBe(2);
    expect(config.get('list[0]')).toBe('x');
    expect(config.get('')).toEqual(config.resolve());
  });

  it('throws NOT_FOUND for a missing path, naming the first missing part', () => {
    const error = thrown(() => config.get('a.x.y'));
    expect(error).toBeInstanceOf(ConfigNotFoundError);
    expect(error.message).toBe('path "a.x.y" not found ("a.x" does not exist)');
    expect(thrown(() => config.get('a.b[5]')).message).toBe('path "a.b[5]" not found');
    expect(thrown(() => config.get('list[0].x')).code).toBe('NOT_FOUND');
  });

  it('throws MALFORMED for a path it cannot read', () => {
    const error = thrown(() => config.get('a..b'));
    expect(error).toBeInstanceOf(ConfigMalformedError);
  });

  it('takes any JSON value as the root', () => {
    expect(Config.fromObject(5).resolve()).toBe(5);
    expect(Config.fromObject(null).resolve()).toBeNull();
    expect(Config.fromObject(['${[1]}', 'x']).resolve()).toEqual(['x', 'x']);
    expect(Config.fromObject('${env:V}', { env: { V: 'v' } }).resolve()).toBe('v');
    expect(Config.fromYaml('- 1\n- 2').resolve()).toEqual([1, 2]);
    expect(Config.fromYaml('').resolve()).toBeNull();
  });

  it('returns a fresh value each time', () => {
    const first = config.resolve<{ a: { b: unknown[] } }>();
    first.a.b.length = 0;
    expect(config.get('a.b')).toHaveLength(2);
  });

  it('rejects values that are not JSON, naming where', () => {
    for (const [value, path] of [
      [{ a: { f: () => 1 } }, 'a.f'],
      [{ a: [1, undefined] }, 'a[1]'],
      [{ n: Number.NaN }, 'n'],
      [{ d: new Date(0) }, 'd'],
    ] as const) {
      const error = thrown(() => Config.fromObject(value));
      expect(error).toBeInstanceOf(ConfigMalformedError);
      expect(error.key).toBe(path);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(thrown(() => Config.fromObject(cyclic)).code).toBe('MALFORMED');
  });

  it('accepts an object held in several places: it is not a cycle', () => {
    const defaults = { host: 'localhost', port: 5432 };
    const config = Config.fromObject({
      primary: defaults,
      replica: defaults,
      servers: [defaults, defaults],
    });
    expect(config.resolve()).toEqual({
      primary: defaults,
      replica: defaults,
      servers: [defaults, defaults],
    });
    // Each place is its own value, as it would be after a JSON round trip.
    const resolved = config.resolve<{ primary: object; replica: object }>();
    expect(resolved.primary).not.toBe(resolved.replica);
  });

  it('rejects exactly the values JSON.stringify finds cyclic (fast-check)', () => {
    // Containers that hold one another by index: any graph, with or without cycles.
    const graph = fc.array(
      fc.record({
        list: fc.boolean(),
        members: fc.array(fc.oneof(fc.nat({ max: 5 }), fc.constant('x')), { maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(graph, (nodes) => {
        const values = nodes.map(({ list }) => (list ? [] : {})) as Array<
          unknown[] | Record<string, unknown>
        >;
        nodes.forEach(({ members }, index) => {
          const target = values[index]!;
          members.forEach((member, position) => {
            const item = typeof member === 'number' ? values[member % values.length] : member;
            if (Array.isArray(target)) target.push(item);
            else target[`k${position}`] = item;
          });
        });
        const root = values[0];
        let expected: unknown;
        try {
          expected = JSON.parse(JSON.stringify(root));
        } catch {
          const error = thrown(() => Config.fromObject(root));
          expect(error.message).toContain('the value contains itself');
          return;
        }
        expect(Config.fromObject(root).resolve()).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('YAML', () => {
  it('uses YAML 1.2 core types: yes, on and 0755-like text stay what they are', () => {
    expect(
      Config.fromYaml('a: yes\nb: on\nc: No\nd: 010\ne: 0o17\nf: ~\ng: 1e3\nh: true').resolve(),
    ).toEqual({
      a: 'yes',
      b: 'on',
      c: 'No',
      d: 10,
      e: 15,
      f: null,
      g: 1000,
      h: true,
    });
  });

  it('reports invalid YAML with its line and column', () => {
    const error = thrown(() => Config.fromYaml('a: 1\nb: [1,\n', { filename: 'bad.yaml' }));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toMatch(/^bad\.yaml:3:1: invalid YAML: /);
    expect(error).toMatchObject({ line: 3, column: 1 });
  });

  it('rejects duplicate keys', () => {
    const error = thrown(() => Config.fromYaml('a: 1\nb:\n  c: 1\n  c: 2', { filename: 'd.yaml' }));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toBe('d.yaml:4:3: invalid YAML: duplicate key "c"');
  });

  it('rejects duplicate keys in a .json file, calling it JSON', () => {
    const error = thrown(() => Config.fromYaml('{"a": 1,\n "a": 2}', { filename: 'c.json' }));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error.message).toBe('c.json:2:2: invalid JSON: duplicate key "a"');
    const syntax = thrown(() => Config.fromYaml('{"a": [1}', { filename: 'c.JSON' }));
    expect(syntax.message).toMatch(/^c\.JSON:1:\d+: invalid JSON: /);
  });

  it.each([
    ['timeout: .inf', 'timeout', 'Infinity', '1:10'],
    ['a:\n  - 1\n  - -.Inf', 'a[1]', '-Infinity', '3:5'],
    ['x: .nan', 'x', 'NaN', '1:4'],
    ['big: 1e400', 'big', 'Infinity', '1:6'],
    ['.NaN', '', 'NaN', '1:1'],
  ])('refuses %j, a number JSON cannot hold, as fromObject does', (text, key, number, place) => {
    const error = thrown(() => Config.fromYaml(text, { filename: 'n.yaml' }));
    expect(error).toBeInstanceOf(ConfigMalformedError);
    expect(error).toMatchObject({ code: 'MALFORMED', key });
    const reason = `the number ${number} is not JSON`;
    expect(error.message).toBe(`n.yaml:${place}: ${key === '' ? '(root)' : key}: ${reason}`);
    if (key !== '') {
      const value = key === 'a[1]' ? { a: [1, -Infinity] } : { [key]: Number(number) };
      expect(thrown(() => Config.fromObject(value)).message).toBe(`${key}: ${reason}`);
    }
  });

  it('keeps the largest finite numbers and a key spelled .inf', () => {
    expect(Config.fromYaml('.inf: 1\nb: 1.7976931348623157e308\n').resolve()).toEqual({
      Infinity: 1,
      b: Number.MAX_VALUE,
    });
  });

  it('honours anchors, aliases and merge keys', () => {
    const text = 'base: &base\n  host: h\n  port: 1\nprod:\n  <<: *base\n  port: 2\ncopy: *base';
    expect(Config.fromYaml(text).resolve()).toEqual({
      base: { host: 'h', port: 1 },
      prod: { host: 'h', port: 2 },
      copy: { host: 'h', port: 1 },
    });
  });

  it('keeps a __proto__ key as data', () => {
    const resolved = Config.fromYaml('__proto__:\n  polluted: true').resolve<
      Record<string, unknown>
    >();
    expect(Object.getPrototypeOf(resolved)).toBe(Object.prototype);
    expect(Object.keys(resolved)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports a missing configuration file as NOT_FOUND', () => {
    const error = thrown(() => Config.fromYamlFile(join(fixtures, 'nope.yaml')));
    expect(error).toBeInstanceOf(ConfigNotFoundError);
    expect(error.message).toContain('nope.yaml" not found');
  });

  it('says where a relative configuration or schema file was looked for', () => {
    const config = thrown(() => Config.fromYamlFile('nope-relative.yaml'));
    expect(config.message).toBe(
      `nope-relative.yaml: configuration file "nope-relative.yaml" not found (looked for ${JSON.stringify(join(process.cwd(), 'nope-relative.yaml'))}: a relative path is read from the working directory)`,
    );
    const schema = thrown(() => Schema.fromFile('nope-relative.schema.yaml'));
    expect(schema.message).toContain(
      `(looked for ${JSON.stringify(join(process.cwd(), 'nope-relative.schema.yaml'))}: a relative path is read from the working directory)`,
    );
  });
});

afterEach(() => {
  delete process.env.RESTMACHINE_TEST_VALUE;
});
