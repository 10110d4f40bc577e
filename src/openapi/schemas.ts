/**
 * Validators to JSON Schema through Standard JSON Schema
 * (https://standardschema.dev/json-schema): `schema['~standard'].jsonSchema.input()` /
 * `.output()`, which zod 4 and arktype implement and valibot offers through
 * `@valibot/to-json-schema`. No converter is bundled: a validator without it documents as `{}`.
 */
import {
  CONVERSION,
  type ConversionOptions,
  type StandardSchemaV1,
} from '../app/inject/validation.js';
import type { Logger } from '../app/logger.js';
import type { JsonSchema } from './types.js';

/** The Standard JSON Schema converter, as far as this module relies on it. */
interface JsonSchemaConverter {
  input?: (options: ConversionOptions) => JsonSchema;
  output?: (options: ConversionOptions) => JsonSchema;
}

export type Direction = 'input' | 'output';

// Once per subject (a validator, a route) for the life of the process: a document built again
// after every registration must not repeat the same warning.
const warned = new WeakSet<object>();

/** Logs `message` the first time it is said about `subject`, never again in this process. */
export function warnOnce(logger: Logger, subject: object, message: string, error?: unknown): void {
  if (warned.has(subject)) return;
  warned.add(subject);
  const reason = error instanceof Error ? { error: error.message } : undefined;
  logger.warn(`OpenAPI: ${message}`, reason);
}

// A validator's JSON Schema, by direction, for the life of the validator: converting is the
// costly part of a document (a zod schema takes tens of microseconds), and the same validators
// are documented again after every registration. Never mutated: hoisting copies.
const converted = new WeakMap<object, Partial<Record<Direction, JsonSchema>>>();

/** Component names allowed by OpenAPI 3.1 §4.8.7 (`^[a-zA-Z0-9.\-_]+$`). */
function componentName(name: string): string {
  return name.replace(/[^A-Za-z0-9.\-_]/g, '_') || 'Schema';
}

/** Converts validators for one document; keeps the schemas it shares under `components`. */
export class SchemaConverter {
  readonly #logger: Logger;
  /** `components.schemas`: named request schemas and the definitions hoisted out of schemas. */
  readonly components: Record<string, JsonSchema> = {};
  readonly #names = new Map<StandardSchemaV1, string>();
  /** The components hoisted from `$defs`, by key: their content, to share with an identical one. */
  readonly #definitions = new Map<string, string>();
  /** `convert()` results of this document: a validator used by many routes is hoisted once. */
  readonly #documented = new Map<StandardSchemaV1, Partial<Record<Direction, JsonSchema>>>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * The JSON Schema of `schema` (`undefined`: no schema, documented as `{}`). Request schemas
   * are the validators' input schemas, response schemas their output ones.
   */
  convert(schema: StandardSchemaV1 | undefined, direction: Direction, where: string): JsonSchema {
    if (schema === undefined) return {};
    const documented = this.#documented.get(schema)?.[direction];
    if (documented !== undefined) return documented;
    const result = this.#convert(schema, direction, where);
    this.#documented.set(schema, { ...this.#documented.get(schema), [direction]: result });
    return result;
  }

  #convert(schema: StandardSchemaV1, direction: Direction, where: string): JsonSchema {
    let rootKey: string | undefined;
    const root = this.#hoist(this.#json(schema, direction, where), () => {
      rootKey ??= this.#reserve('Schema');
      return rootKey;
    });
    if (rootKey === undefined) return root;
    setOwn(this.components, rootKey, root);
    return { $ref: reference(rootKey) };
  }

  /**
   * The input schema of a named validator, kept once under `components.schemas` and referenced
   * (a name taken by another schema gets a numbered suffix).
   */
  named(schema: StandardSchemaV1, name: string, where: string): JsonSchema {
    let key = this.#names.get(schema);
    if (key === undefined) {
      const reserved = this.#reserve(name);
      key = reserved;
      this.#names.set(schema, reserved);
      const root = this.#hoist(this.#json(schema, 'input', where), () => reserved);
      setOwn(this.components, reserved, root);
    }
    return { $ref: reference(key) };
  }

  /**
   * `schema` itself, or the component its top-level `$ref` names (zod gives a schema with an id
   * as a reference to its definition), followed a few times.
   */
  resolve(schema: JsonSchema): JsonSchema {
    let resolved = schema;
    for (let hops = 0; hops < 8 && typeof resolved.$ref === 'string'; hops++) {
      const prefix = reference('');
      if (!resolved.$ref.startsWith(prefix)) break;
      const key = resolved.$ref.slice(prefix.length);
      if (!Object.hasOwn(this.components, key)) break;
      resolved = this.components[key] as JsonSchema;
    }
    return resolved;
  }

  #json(schema: StandardSchemaV1, direction: Direction, where: string): JsonSchema {
    const known = converted.get(schema)?.[direction];
    if (known !== undefined) return known;
    const json = this.#fresh(schema, direction, where);
    converted.set(schema, { ...converted.get(schema), [direction]: json });
    return json;
  }

  #fresh(schema: StandardSchemaV1, direction: Direction, where: string): JsonSchema {
    const converter = (schema['~standard'] as { jsonSchema?: JsonSchemaConverter }).jsonSchema;
    const convert = converter?.[direction];
    if (typeof convert !== 'function') {
      this.#warn(schema, `${where}: the validator (${vendor(schema)}) has no Standard JSON Schema`);
      return {};
    }
    // Strictly first: a vendor throws on a member JSON Schema cannot express (`z.date()`), the
    // only way to hear of it and warn. Then as validation reads lists (`CONVERSION`): that member
    // becomes `{}` and the rest, a required list parameter among it, is still documented.
    let refusal: unknown;
    try {
      const strict = conversionOptions(schema, direction, { target: CONVERSION.target });
      return withoutDialect(convert.call(converter, strict));
    } catch (error) {
      refusal = error;
    }
    try {
      const lenient = withoutDialect(
        convert.call(converter, conversionOptions(schema, direction, CONVERSION)),
      );
      const message = `${where}: ${vendor(schema)} cannot express part of it as JSON Schema; that part is documented as {}`;
      warnOnce(this.#logger, schema, message, refusal);
      return lenient;
    } catch {
      this.#warn(schema, `${where}: ${vendor(schema)} cannot express it as JSON Schema`, refusal);
      return {};
    }
  }

  /** Takes a component name; `Error` is the built-in error body's. */
  #reserve(name: string): string {
    const base = componentName(name);
    let key = base;
    for (let n = 2; Object.hasOwn(this.components, key) || key === 'Error'; n++)
      key = `${base}${n}`;
    setOwn(this.components, key, {});
    return key;
  }

  /**
   * Moves a schema's `$defs` to `components.schemas`: embedded in the document, `#/$defs/...`
   * and `#` would resolve against the document's root, not the schema's (JSON Schema 2020-12
   * §8.2.1; OpenAPI 3.1 §4.8.24, Schema Object). A schema that refers to itself (`#`) becomes a component
   * too, under the key `rootKey` gives.
   *
   * A definition keeps its name (zod's `meta({ id })`) and shares the component of an earlier
   * schema's definition with the same name and the same content: one `Item` for every schema
   * that holds it. Only a different definition under a taken name gets a numbered one (`Item2`).
   */
  #hoist(raw: JsonSchema, rootKey: () => string): JsonSchema {
    const { $defs, ...root } = raw;
    const definitions = (typeof $defs === 'object' && $defs !== null ? $defs : {}) as JsonSchema;
    const names = Object.keys(definitions);
    const keys = new Map<string, string>();
    const target = (ref: string): string => {
      if (ref === '#') return reference(rootKey());
      if (!ref.startsWith('#/$defs/')) return ref;
      const [token = '', ...rest] = ref.slice('#/$defs/'.length).split('/');
      const key = definitionKey(token, keys);
      return key === undefined ? ref : [reference(key), ...rest].join('/');
    };
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (typeof node !== 'object' || node === null) return node;
      const out: JsonSchema = {};
      for (const [key, value] of Object.entries(node)) {
        setOwn(
          out,
          key,
          key === '$ref' && typeof value === 'string' ? target(value) : rewrite(value),
        );
      }
      return out;
    };
    // Each definition tries `name`, then `name2`, `name3`...: it moves on while the key holds
    // something else. Moving one changes the content of those that refer to it, so the keys
    // are chosen again until each holds its own definition or an identical one.
    const attempts = new Map(names.map((name) => [name, 1]));
    let hoisted: { name: string; key: string; schema: JsonSchema; text: string }[] = [];
    for (let settled = false; !settled; ) {
      for (const name of names) {
        const attempt = attempts.get(name) as number;
        keys.set(name, `${componentName(name)}${attempt === 1 ? '' : attempt}`);
      }
      hoisted = names.map((name) => {
        const schema = rewrite(definitions[name]) as JsonSchema;
        return { name, key: keys.get(name) as string, schema, text: canonicalJson(schema) };
      });
      settled = true;
      const claimed = new Map<string, string>();
      for (const { name, key, text } of hoisted) {
        const held = claimed.get(key) ?? this.#definitions.get(key);
        const free = key !== 'Error' && !Object.hasOwn(this.components, key);
        if ((held === undefined && !free) || (held !== undefined && held !== text)) {
          attempts.set(name, (attempts.get(name) as number) + 1);
          settled = false;
        } else claimed.set(key, text);
      }
    }
    for (const { key, schema, text } of hoisted) {
      if (this.#definitions.has(key)) continue;
      this.#definitions.set(key, text);
      setOwn(this.components, key, schema);
    }
    return rewrite(root) as JsonSchema;
  }

  #warn(schema: StandardSchemaV1, message: string, error?: unknown): void {
    warnOnce(this.#logger, schema, `${message}; documented as {}`, error);
  }
}

/**
 * The component of the definition a `#/$defs/` pointer token names: the token unescaped
 * (RFC 6901), as zod writes it, else percent-decoded first, as a URI fragment may carry it. The
 * raw name goes first: an id such as `100%` is no valid percent-encoding, and `50%25` is a name.
 */
function definitionKey(token: string, keys: ReadonlyMap<string, string>): string | undefined {
  const unescaped = (text: string) => text.replace(/~1/g, '/').replace(/~0/g, '~');
  const raw = keys.get(unescaped(token));
  if (raw !== undefined) return raw;
  try {
    return keys.get(unescaped(decodeURIComponent(token)));
  } catch {
    return undefined; // not percent-encoding: the raw name was the only reading
  }
}

/** What zod's `override` option is given for each member it converts. */
interface ZodOverrideContext {
  zodSchema: { _zod: { def: { type: string; catchall?: unknown } } };
  jsonSchema: JsonSchema;
}

/**
 * Opens the output schema of an object that strips unknown keys. zod writes a `z.object`'s
 * output as closed (`additionalProperties: false`) because parsing drops other keys, but the
 * server sends the handler's value as it is, those keys included (docs/openapi.md, "Checking
 * responses"): a client checking answers against a closed schema would refuse real ones. An
 * object that refuses unknown keys (`z.strictObject`, `.strict()`: a `never` catchall) stays
 * closed; a catchall (`.loose()`, `.catchall(schema)`) is kept as zod writes it.
 */
function openStrippedObject({ zodSchema, jsonSchema }: ZodOverrideContext): void {
  const { type, catchall } = zodSchema._zod.def;
  if (type === 'object' && catchall === undefined) delete jsonSchema.additionalProperties;
}

/**
 * The converter's options: `base`, and for a zod schema's output (what `returns()` documents)
 * its `override` that opens stripping objects. Request schemas stay as converted: a request
 * body's `z.object` takes unknown keys, and zod's input schema says so already.
 */
function conversionOptions(
  schema: StandardSchemaV1,
  direction: Direction,
  base: ConversionOptions,
): ConversionOptions {
  if (direction === 'input' || vendor(schema) !== 'zod') return base;
  return { ...base, libraryOptions: { ...base.libraryOptions, override: openStrippedObject } };
}

/** A converted schema without its `$schema`: the document's dialect applies. */
function withoutDialect(json: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = json;
  return rest;
}

/** `value` as JSON with its object keys sorted: equal schemas give equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, node: unknown) =>
    typeof node === 'object' && node !== null && !Array.isArray(node)
      ? Object.fromEntries(Object.entries(node).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : node,
  );
}

function reference(key: string): string {
  return `#/components/schemas/${key}`;
}

/**
 * Sets an own property whatever its name: schema property names are data, and `__proto__` must
 * not reach a prototype.
 */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function vendor(schema: StandardSchemaV1): string {
  return String(schema['~standard'].vendor);
}
