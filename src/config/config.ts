/**
 * `Config`: a configuration read from YAML (or given as a value), with `${...}` interpolations
 * resolved on demand and validated against a {@link Schema}.
 */

import { dirname, extname, resolve as resolvePath } from 'node:path';
import type { ErrorObject } from 'ajv';
import { coerceText, replaceAt, toPointer } from './coercion.js';
import {
  ConfigMalformedError,
  ConfigNotFoundError,
  ConfigTooLargeError,
  ConfigValidationError,
  type ConfigViolation,
} from './errors.js';
import { mayInterpolate, type Template, wholeExpression } from './interpolation/parser.js';
import { Resolution } from './interpolation/resolver.js';
import { type ResolverSource, templateOf } from './interpolation/resolver-source.js';
import { type JsonValue, lineAndColumn } from './json.js';
import { jsoncAsJson, strictJsonProblem } from './json-places.js';
import {
  checkedLimit,
  checkOptionNames,
  DEFAULT_MAX_VALUE_BYTES,
  DEFAULT_TOTAL_PER_VALUE,
  MAX_FILE_BYTES,
} from './limits.js';
import { refuseDeepNesting } from './nesting.js';
import {
  formatPath,
  type PathSegment,
  PathSyntaxError,
  parsePath,
  pointerToSegments,
  valueAt,
} from './path.js';
import { lookedFor, NotTextError, readTextUpTo } from './read-text.js';
import { redact, redactedText } from './redaction.js';
import { type LocatedViolation, violationsFrom } from './schema/messages.js';
import { TEXT_PLACEHOLDER, WHOLE_PLACEHOLDER } from './schema/placeholders.js';
import { runValidator, type Schema, validatorFor } from './schema.js';
import {
  type ConfigNode,
  childNode,
  nearestNode,
  nodesFromValue,
  plainValue,
  type ScalarNode,
} from './source.js';
import { normalisedText } from './source-text.js';
import { nodesFromYaml } from './yaml-source.js';

/** Where interpolations look things up. */
export interface ConfigOptions {
  /** The folder `${file:...}` paths are relative to (default: the configuration file's folder, else the working directory). */
  readonly baseDir?: string | undefined;
  /** Environment variables for `${env:...}` (default: `process.env`, read at each resolution). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * The most bytes a value produced by an interpolation may hold (default
   * {@link DEFAULT_MAX_VALUE_BYTES}, 1 MiB; `Infinity` for no limit). A larger one is a
   * `TOO_LARGE` error naming the key and the expression. Strings count their UTF-8 bytes; lists
   * and maps copied by a reference count about their size as JSON. Values written in the
   * configuration itself are not limited, only copies of them.
   */
  readonly maxValueBytes?: number | undefined;
  /**
   * The most bytes all the values interpolations produce in one `get`, `resolve` or `validate`
   * may hold together, counted as for `maxValueBytes` (default 16 × `maxValueBytes`, 16 MiB;
   * `Infinity` for no limit). Going over is a `TOO_LARGE` error naming the key and the
   * expression where the total went over, before that value is copied.
   */
  readonly maxTotalBytes?: number | undefined;
}

/** Options of {@link Config.fromYaml}. */
export interface YamlConfigOptions extends ConfigOptions {
  /** The name messages give the text (`config.yaml:3:9: ...`); also anchors `${file:}` when `baseDir` is not given. */
  readonly filename?: string | undefined;
}

/** Options of {@link Config.validate}. */
export interface ValidateOptions {
  /** Fill in the schema's `default`s for missing properties in the returned value. */
  readonly applyDefaults?: boolean | undefined;
}

// The names of each options type, checked against it by the compiler.
const CONFIG_OPTIONS = Object.keys({
  baseDir: true,
  env: true,
  maxValueBytes: true,
  maxTotalBytes: true,
} satisfies Record<keyof ConfigOptions, true>);
const YAML_CONFIG_OPTIONS = Object.keys({
  baseDir: true,
  env: true,
  maxValueBytes: true,
  maxTotalBytes: true,
  filename: true,
} satisfies Record<keyof YamlConfigOptions, true>);
const VALIDATE_OPTIONS = Object.keys({ applyDefaults: true } satisfies Record<
  keyof ValidateOptions,
  true
>);

/**
 * A configuration with `${...}` interpolations (environment variables, files, references to
 * other values), resolved lazily and validated against a JSON Schema.
 *
 * @example
 * ```ts
 * const schema = Schema.fromFile('config.schema.yaml');
 * const settings = Config.fromYamlFile('config.yaml').validate<Settings>(schema, { applyDefaults: true });
 * settings.database.port; // a number, even when it came from ${env:DB_PORT}
 * ```
 */
export class Config {
  readonly #root: ConfigNode;
  readonly #file: string | undefined;
  readonly #baseDir: string;
  readonly #env: Readonly<Record<string, string | undefined>> | undefined;
  readonly #maxValueBytes: number;
  readonly #maxTotalBytes: number;
  readonly #templates = new WeakMap<ScalarNode, Template>();

  private constructor(
    root: ConfigNode,
    file: string | undefined,
    baseDir: string,
    options: ConfigOptions,
  ) {
    this.#root = root;
    this.#file = file;
    this.#baseDir = baseDir;
    this.#env = options.env;
    this.#maxValueBytes = checkedLimit(
      options.maxValueBytes,
      'maxValueBytes',
      DEFAULT_MAX_VALUE_BYTES,
    );
    this.#maxTotalBytes = checkedLimit(
      options.maxTotalBytes,
      'maxTotalBytes',
      DEFAULT_TOTAL_PER_VALUE * this.#maxValueBytes,
    );
  }

  /**
   * Reads a YAML (or JSON) file. A missing file is a `NOT_FOUND` error; a file longer than
   * {@link MAX_FILE_BYTES} (4 MiB) is a `TOO_LARGE` error, found without reading it whole.
   */
  static fromYamlFile(path: string, options: ConfigOptions = {}): Config {
    checkOptionNames('Config.fromYamlFile()', options, CONFIG_OPTIONS);
    let text: string | undefined;
    try {
      text = readTextUpTo(path, MAX_FILE_BYTES);
    } catch (error) {
      if (error instanceof NotTextError) {
        const { line, column } = error;
        throw new ConfigMalformedError(`the file ${error.reason}`, { file: path, line, column });
      }
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigNotFoundError(
        code === 'ENOENT'
          ? `configuration file ${JSON.stringify(path)} not found${lookedFor(path)}`
          : `configuration file ${JSON.stringify(path)} cannot be read (${code ?? String(error)})`,
        { file: path },
      );
    }
    if (text === undefined) throw new ConfigTooLargeError(MAX_FILE_BYTES, { file: path }, 'file');
    return Config.fromYaml(text, { ...options, filename: path });
  }

  /** Reads YAML text (YAML 1.2, core schema: `yes` stays a string). */
  static fromYaml(text: string, options: YamlConfigOptions = {}): Config {
    checkOptionNames('Config.fromYaml()', options, YAML_CONFIG_OPTIONS);
    text = normalisedText(text);
    const { filename } = options;
    const baseDir =
      options.baseDir ?? (filename === undefined ? process.cwd() : dirname(resolvePath(filename)));
    const extension = filename === undefined ? '' : extname(filename).toLowerCase();
    // JSONC (`.jsonc`): its comments and trailing commas become spaces, then it is strict JSON.
    if (extension === '.jsonc') {
      const json = jsoncAsJson(text);
      if (typeof json !== 'string') {
        throw new ConfigMalformedError(`invalid JSON: ${json.reason}`, {
          file: filename,
          ...lineAndColumn(text, json.offset),
        });
      }
      text = json;
    }
    const json = extension === '.json' || extension === '.jsonc';
    // Before any parser recurses into it (the JSON check below does too).
    refuseDeepNesting(text, filename, json ? 'JSON' : 'YAML');
    if (json) {
      // Strict JSON, as `Schema.fromFile` reads a `.json` schema: read as YAML, `// comments`,
      // single quotes and trailing commas would pass, a comment becoming part of a value. The
      // nodes (with their positions) are then read as YAML, of which JSON is a subset.
      const parsed = strictJsonProblem(text);
      if (!('value' in parsed)) {
        throw new ConfigMalformedError(`invalid JSON: ${parsed.reason}`, {
          file: filename,
          ...lineAndColumn(text, parsed.offset),
        });
      }
    }
    const root = nodesFromYaml(text, filename, json ? 'JSON' : 'YAML');
    return new Config(root, filename, resolvePath(baseDir), options);
  }

  /** Wraps a JSON value (any JSON value may be the root). Strings may hold interpolations. */
  static fromObject(value: unknown, options: ConfigOptions = {}): Config {
    checkOptionNames('Config.fromObject()', options, CONFIG_OPTIONS);
    return new Config(
      nodesFromValue(value),
      undefined,
      resolvePath(options.baseDir ?? process.cwd()),
      options,
    );
  }

  /** The file the configuration was read from, when there is one. */
  get filename(): string | undefined {
    return this.#file;
  }

  private source(): ResolverSource {
    return {
      root: this.#root,
      file: this.#file,
      baseDir: this.#baseDir,
      env: this.#env ?? process.env,
      maxValueBytes: this.#maxValueBytes,
      maxTotalBytes: this.#maxTotalBytes,
      templates: this.#templates,
    };
  }

  /**
   * The resolved value at a dotted path (`'database.port'`, `'servers[0].host'`, `''` for the
   * root). A missing path throws a `NOT_FOUND` error.
   */
  get<T = JsonValue>(path: string): T {
    let segments: PathSegment[];
    try {
      segments = parsePath(path);
    } catch (error) {
      if (error instanceof PathSyntaxError) {
        throw new ConfigMalformedError(`invalid path: ${error.message}`, { expression: path });
      }
      throw error;
    }
    const resolution = new Resolution(this.source());
    let node = this.#root;
    let index = 0;
    for (; index < segments.length && node.kind !== 'scalar'; index++) {
      const child = childNode(node, segments[index]!);
      if (!child) throw this.notFound(path, segments.slice(0, index + 1));
      node = child;
    }
    let value: JsonValue | undefined = resolution.resolve(node).value;
    // The rest of the path leads inside a value that came from an interpolation.
    for (let rest = index; rest < segments.length; rest++) {
      value = valueAt(value, [segments[rest]!]) as JsonValue | undefined;
      if (value === undefined) throw this.notFound(path, segments.slice(0, rest + 1));
    }
    return value as T;
  }

  private notFound(path: string, missing: readonly PathSegment[]): ConfigNotFoundError {
    const first = formatPath(missing);
    const reason =
      first === path
        ? `path ${JSON.stringify(path)} not found`
        : `path ${JSON.stringify(path)} not found (${JSON.stringify(first)} does not exist)`;
    return new ConfigNotFoundError(reason, { file: this.#file });
  }

  /** The whole configuration, every interpolation resolved. */
  resolve<T = JsonValue>(): T {
    return new Resolution(this.source()).resolve(this.#root).value as T;
  }

  /**
   * Resolves every interpolation, validates the result and returns it. Interpolation errors are
   * thrown as themselves; violations as one {@link ConfigValidationError} listing all of them.
   * Strings that came wholly from `${env:...}`, `${file:...}` or a default are converted to the
   * schema's scalar type when they are exactly its JSON form (`"8080"` for an integer).
   * Violations show text that came from `${env:...}` or `${file:...}` as `<from env:NAME>` or
   * `<from file:PATH>`, never as itself.
   */
  validate<T = JsonValue>(schema: Schema, options: ValidateOptions = {}): T {
    checkOptionNames('validate()', options, VALIDATE_OPTIONS);
    const resolved = new Resolution(this.source()).resolve(this.#root);
    let value = resolved.value;
    const { validate } = validatorFor(schema, options.applyDefaults ? 'defaults' : 'plain');
    const coercible = new Set(resolved.coercible.map(toPointer));
    // Each round converts at least one string or stops, so this ends.
    for (;;) {
      if (runValidator(validate, value, { file: this.#file })) return value as T;
      const errors = [...(validate.errors ?? [])];
      let converted = false;
      for (const error of errors) {
        if (error.keyword !== 'type' || !coercible.has(error.instancePath)) continue;
        const segments = pointerToSegments(error.instancePath, value);
        const current = valueAt(value, segments);
        if (typeof current !== 'string') continue;
        const type = (error.params as { type: unknown }).type;
        const types = Array.isArray(type) ? type.map(String) : String(type).split(',');
        const coerced = coerceText(current, types);
        if (coerced === undefined) continue;
        value = replaceAt(value, segments, coerced);
        coercible.delete(error.instancePath);
        converted = true;
      }
      if (!converted) {
        const { secrets } = resolved;
        if (secrets.length === 0) {
          throw this.validationError(violationsFrom(errors, value, { validate }));
        }
        const display = redact(value, secrets);
        const found = violationsFrom(errors, value, { display, validate });
        throw this.validationError(
          found.map((violation) => ({ ...violation, value: redactedText(violation.value) })),
        );
      }
    }
  }

  /**
   * Checks the configuration's shape without resolving anything: structure, `required`,
   * `additionalProperties` and every literal value are checked, while a value that is wholly an
   * interpolation is accepted wherever a value may stand. A malformed interpolation is a
   * `MALFORMED` error.
   */
  validateRaw(schema: Schema): void {
    const source = this.source();
    let counter = 0;
    const standIn = (node: ScalarNode): JsonValue => {
      if (typeof node.value !== 'string' || !mayInterpolate(node.value)) return node.value;
      const template = templateOf(source, node);
      if (wholeExpression(template)) return `${WHOLE_PLACEHOLDER}${counter++}`;
      if (template.parts.some((part) => typeof part !== 'string'))
        return `${TEXT_PLACEHOLDER}${counter++}`;
      return template.parts.join('');
    };
    // Messages show placeholders as written, and escaped text as the literal it stands for.
    const shown = (node: ScalarNode): JsonValue => {
      const value = standIn(node);
      const placeholder =
        typeof value === 'string' &&
        (value.startsWith(WHOLE_PLACEHOLDER) || value.startsWith(TEXT_PLACEHOLDER));
      return placeholder ? node.value : value;
    };
    // Malformed text is reported in document order, first one first.
    forEachScalar(this.#root, (node) => void standIn(node));
    const data = plainValue(this.#root, standIn);
    const { validate, original } = validatorFor(schema, 'raw');
    if (runValidator(validate, data, { file: this.#file })) return;
    const errors: ErrorObject[] = [...(validate.errors ?? [])];
    const display = plainValue(this.#root, shown);
    throw this.validationError(violationsFrom(errors, data, { display, original, validate }));
  }

  private validationError(violations: readonly LocatedViolation[]): ConfigValidationError {
    const located = violations.map((violation): ConfigViolation => {
      const node = nearestNode(this.#root, violation.segments);
      let location = node.kind === 'scalar' ? node.location : (node.keyLocation ?? node.location);
      if (violation.property !== undefined && node.kind === 'map') {
        const extra = node.entries.get(violation.property);
        location = extra?.keyLocation ?? location;
      }
      const { path, message, keyword, value } = violation;
      return {
        path,
        message,
        keyword,
        value,
        file: this.#file,
        line: location?.line,
        column: location?.column,
      };
    });
    return new ConfigValidationError(located, this.#file);
  }
}

/** Visits every scalar in document order. */
function forEachScalar(root: ConfigNode, visit: (node: ScalarNode) => void): void {
  const pending: ConfigNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.kind === 'scalar') visit(node);
    else if (node.kind === 'list')
      for (let index = node.items.length - 1; index >= 0; index--) pending.push(node.items[index]!);
    else pending.push(...[...node.entries.values()].reverse());
  }
}
