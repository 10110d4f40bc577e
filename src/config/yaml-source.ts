/**
 * YAML text to a node tree, keeping the line and column of every key and value. YAML 1.2 with
 * the core schema, so `yes` and `on` stay strings; merge keys (`<<: *defaults`) are honoured.
 *
 * Aliases copy what they point to, so a few hundred bytes can stand for billions of values
 * ("billion laughs": `l1: &l1 [*l0, *l0]`, `l2: &l2 [*l1, *l1]`, ...). The document is therefore
 * read in three passes, each linear in the size of the text or of the result:
 * 1. every alias is matched with its anchor in one walk (the `yaml` library's `Alias.resolve`
 *    searches the document from its start at each call, which made every copy cost the size of
 *    the whole document: 18 doubling levels took about 50 s before the node cap answered);
 * 2. the number of values each node expands to is counted, once per node, with the keys of
 *    every map (merge keys included) listed once; past {@link MAX_NODES} the document is refused
 *    before anything is copied;
 * 3. the tree is built, at a cost proportional to the values counted.
 */

import {
  type Alias,
  type Document,
  isAlias,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Pair,
  parseDocument,
  type ScalarTag,
  type YAMLError,
  type YAMLMap,
  type YAMLWarning,
  type Node as YamlNode,
} from 'yaml';
import { ConfigMalformedError } from './errors.js';
import { MAX_DOCUMENT_VALUES } from './limits.js';
import { refuseDeepNesting } from './nesting.js';
import { formatPath, type PathSegment } from './path.js';
import {
  type ConfigNode,
  type ContainerNode,
  type Location,
  listNode,
  type MapNode,
  mapNode,
  nodeSegments,
  scalarNode,
} from './source.js';

/** The most values a document may expand to, aliases and merge keys counted as copies. */
const MAX_NODES = MAX_DOCUMENT_VALUES;

/**
 * Parses YAML text into nodes. Syntax errors are {@link ConfigMalformedError}s with a position.
 * JSON is read the same way (it is YAML 1.2); `language` is what messages call the text, so a
 * `.json` file's errors say JSON. Its bare CRs must already be LFs (source-text.ts).
 */
export function nodesFromYaml(
  text: string,
  file?: string,
  language: 'YAML' | 'JSON' = 'YAML',
): ConfigNode {
  refuseDeepNesting(text, file, language);
  const lineCounter = new LineCounter();
  const document = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    version: '1.2',
    schema: 'core',
    merge: true,
    // Only the core schema's tags: without this the parser also takes YAML 1.1's `!!set`,
    // `!!omap`, `!!pairs`, `!!binary` and `!!timestamp` when written explicitly.
    resolveKnownTags: false,
    customTags: (tags) => [...tags, EXPLICIT_FLOAT],
    // The parser's own duplicate check compares every pair of keys (quadratic in a map's size);
    // TreeBuilder.entriesOf checks with a set instead.
    uniqueKeys: false,
  });
  // An unknown tag is only a warning to the parser, which then reads the value without it:
  // `bucket: !Ref MyBucket` would become the text "MyBucket", silently changing what a
  // CloudFormation-style file means. It is an error here, like any other unreadable text.
  const [error] = [...document.errors, ...document.warnings.filter(isUnresolvedTag)];
  if (error) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new ConfigMalformedError(`invalid ${language}: ${describeYamlError(error, text, line)}`, {
      file,
      line,
      column: col,
    });
  }
  return new TreeBuilder(document, lineCounter, file, language).build();
}

/**
 * `!!float` as YAML 1.2.2's core schema reads it (§10.3.2): its pattern takes integers too
 * (`!!float 1` is 1), which the parser's own float tags, made for plain scalars, do not.
 * Being no default tag, it is used only for a value written with the tag.
 */
const EXPLICIT_FLOAT: ScalarTag = {
  tag: 'tag:yaml.org,2002:float',
  identify: () => false,
  resolve: (text, onError) => {
    if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)) {
      return Number.parseFloat(text);
    }
    if (/^[-+]?\.(?:inf|Inf|INF)$/.test(text)) {
      return text.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    }
    if (/^\.(?:nan|NaN|NAN)$/.test(text)) return Number.NaN;
    onError(`not a float: ${text}`);
    return text;
  },
};

function isUnresolvedTag(warning: YAMLWarning): boolean {
  return warning.code === 'TAG_RESOLVE_FAILED';
}

/** The tags of the core schema, written `!!int` or `!<tag:yaml.org,2002:int>`. */
const CORE_TAG = /^(?:!!|!<tag:yaml\.org,2002:)(?:str|int|float|bool|null|map|seq)>?$/;

/**
 * What the parser's error means for the author of the file: its own wording where that is
 * clear, and a reason to act on where it gives advice about its API.
 */
function describeYamlError(error: YAMLError, text: string, line: number): string {
  if (error.code === 'MULTIPLE_DOCS') {
    // A second document starts with "---", or bare after a "..." that ended the first.
    const where = text.startsWith('---', error.pos[0])
      ? `"---" at line ${line}`
      : `the second starts at line ${line}`;
    return `more than one document (${where}); a configuration or schema file holds one`;
  }
  if (error.code === 'TAG_RESOLVE_FAILED') {
    const tag = text.slice(error.pos[0], error.pos[1]);
    if (CORE_TAG.test(tag)) return `the value does not fit its tag ${tag}`;
    return `unknown tag ${tag} (only the core schema's tags, such as !!str, are understood)`;
  }
  return error.message;
}

/** A map's entries after merge keys are applied, in order: key to the pair that gives its value. */
type Entries = ReadonlyMap<string, Pair>;

class TreeBuilder {
  private readonly targets = new Map<Alias, YamlNode>();
  /** How many values each collection expands to (pass 2). */
  private readonly sizes = new Map<YamlNode, number>();
  private readonly counting = new Set<YamlNode>();
  /** Entries of every map, and of every `[key: value]` pair written inside a flow sequence. */
  private readonly entryLists = new Map<YAMLMap | Pair, Entries>();
  private readonly listing = new Set<YAMLMap>();
  /** Where pass 2 is, for messages about keys. */
  private readonly trail: PathSegment[] = [];
  private nodeCount = 0;

  constructor(
    private readonly document: Document,
    private readonly lineCounter: LineCounter,
    private readonly file: string | undefined,
    private readonly language: 'YAML' | 'JSON',
  ) {}

  build(): ConfigNode {
    const contents = this.document.contents;
    if (contents === null) {
      const root = scalarNode(null, undefined, undefined);
      root.location = { line: 1, column: 1 };
      return root;
    }
    try {
      this.matchAliases(contents);
      this.count(contents);
      return this.node(contents, undefined, undefined);
    } catch (error) {
      // Passes 2 and 3 recurse along the values: text is refused past 200 levels (nesting.ts),
      // but aliases can nest copies deeper than the text.
      if (error instanceof RangeError && /call stack/i.test(error.message)) {
        this.fail('the document nests too deeply (check its aliases)', contents.range?.[0]);
      }
      throw error;
    }
  }

  private locate(offset: number | undefined): Location | undefined {
    if (offset === undefined) return undefined;
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }

  private fail(reason: string, offset: number | undefined, key?: string): never {
    const location = this.locate(offset);
    throw new ConfigMalformedError(reason, { key, file: this.file, ...location });
  }

  /**
   * Pass 1: an alias names the latest anchor of that name before it in document order (YAML
   * 1.2 §3.2.2.2); one walk in that order, keys before values, finds them all.
   */
  private matchAliases(root: YamlNode): void {
    const latest = new Map<string, YamlNode>();
    const pending: unknown[] = [root];
    while (pending.length > 0) {
      const item = pending.pop();
      if (isPair(item)) {
        pending.push(item.value, item.key);
      } else if (isAlias(item)) {
        const target = latest.get(item.source);
        if (target) this.targets.set(item, target);
      } else if (isNode(item)) {
        if (item.anchor) latest.set(item.anchor, item);
        if (isMap(item) || isSeq(item)) {
          const items = item.items as unknown[];
          for (let index = items.length - 1; index >= 0; index--) pending.push(items[index]);
        }
      }
    }
  }

  private target(alias: Alias): YamlNode {
    const target = this.targets.get(alias);
    if (!target) this.fail(`unknown alias *${alias.source}`, alias.range?.[0]);
    return target;
  }

  /** Pass 2: how many values `yamlNode` expands to; refuses the document past the cap. */
  private count(yamlNode: YamlNode): number {
    const target = isAlias(yamlNode) ? this.target(yamlNode) : yamlNode;
    if (isScalar(target)) return 1;
    const known = this.sizes.get(target);
    if (known !== undefined) return known;
    if (this.counting.has(target)) {
      this.fail(
        `alias *${(yamlNode as Alias).source} refers to a value that contains it`,
        yamlNode.range?.[0],
      );
    }
    this.counting.add(target);
    let size = 1;
    const add = (child: YamlNode | null, offset: number | undefined) => {
      size += child === null ? 1 : this.count(child);
      if (size > MAX_NODES) {
        this.fail(
          `the document expands to more than ${MAX_NODES} values (check its aliases and merge keys)`,
          offset,
        );
      }
    };
    if (isMap(target)) {
      for (const [key, pair] of this.entriesOf(target)) {
        this.trail.push(key);
        const value = pair.value as YamlNode | null;
        add(value, (value ?? (pair.key as YamlNode | null))?.range?.[0]);
        this.trail.pop();
      }
    } else if (isSeq(target)) {
      (target.items as unknown[]).forEach((item, index) => {
        this.trail.push(index);
        if (isPair(item)) {
          size += 1;
          for (const [key, pair] of this.entriesOf(item)) {
            this.trail.push(key);
            add(pair.value as YamlNode | null, (pair.key as YamlNode | null)?.range?.[0]);
            this.trail.pop();
          }
        } else {
          add(item as YamlNode, (item as YamlNode).range?.[0]);
        }
        this.trail.pop();
      });
    } else {
      this.fail('unsupported YAML node', target.range?.[0]);
    }
    this.counting.delete(target);
    this.sizes.set(target, size);
    return size;
  }

  /**
   * The entries of a map, listed once per map: explicit keys first in precedence, then the maps
   * merged in, earlier ones first (the YAML merge key type, yaml.org/type/merge.html). A merged
   * map's own merges are already applied in its entries.
   */
  private entriesOf(owner: YAMLMap | Pair): Entries {
    const known = this.entryLists.get(owner);
    if (known) return known;
    const pairs = isPair(owner) ? [owner] : (owner.items as Pair[]);
    const explicitKeys = new Set<string>();
    for (const pair of pairs) {
      if (this.isMerge(pair)) continue;
      const key = this.keyOf(pair);
      if (explicitKeys.has(key)) {
        this.fail(
          `invalid ${this.language}: duplicate key ${JSON.stringify(key)}`,
          (pair.key as YamlNode | null)?.range?.[0],
        );
      }
      explicitKeys.add(key);
    }
    if (!isPair(owner)) this.listing.add(owner);
    const entries = new Map<string, Pair>();
    for (const pair of pairs) {
      if (!this.isMerge(pair)) {
        entries.set(this.keyOf(pair), pair);
        continue;
      }
      for (const source of this.mergeSources(pair)) {
        for (const [key, merged] of this.entriesOf(source)) {
          if (!explicitKeys.has(key) && !entries.has(key)) entries.set(key, merged);
        }
      }
    }
    if (!isPair(owner)) this.listing.delete(owner);
    this.entryLists.set(owner, entries);
    return entries;
  }

  private isMerge(pair: Pair): boolean {
    return isScalar(pair.key) && typeof pair.key.value === 'symbol';
  }

  /** The maps a merge key brings in, in order of precedence. */
  private mergeSources(pair: Pair): YAMLMap[] {
    const value = pair.value as YamlNode | null;
    const offset = (pair.key as YamlNode).range?.[0];
    const asMap = (node: YamlNode): YAMLMap => {
      const target = isAlias(node) ? this.target(node) : node;
      if (!isMap(target)) this.fail('a merge key (<<) takes a map or a list of maps', offset);
      if (this.listing.has(target)) this.fail('a merge key (<<) merges a map into itself', offset);
      return target;
    };
    if (value !== null && isSeq(value)) return (value.items as YamlNode[]).map(asMap);
    if (value === null) this.fail('a merge key (<<) takes a map or a list of maps', offset);
    return [asMap(value)];
  }

  private keyOf(pair: Pair): string {
    let key = pair.key as YamlNode | null;
    if (key !== null && isAlias(key)) key = this.target(key);
    if (key === null) return '';
    if (!isScalar(key)) {
      this.fail(
        'only scalar keys are supported (a map or list cannot be a key)',
        key.range?.[0],
        formatPath(this.trail),
      );
    }
    const value = key.value;
    return value === null || value === undefined ? '' : String(value);
  }

  /** Pass 3: the nodes, every alias a copy of its target. */
  private node(
    yamlNode: YamlNode,
    parent: ContainerNode | undefined,
    key: PathSegment | undefined,
  ): ConfigNode {
    // Pass 2 already bounds the count; this guards the bound against a mistake in either pass.
    if (++this.nodeCount > MAX_NODES) {
      this.fail(`the document expands to more than ${MAX_NODES} values`, yamlNode.range?.[0]);
    }
    const start = yamlNode.range?.[0];
    const target = isAlias(yamlNode) ? this.target(yamlNode) : yamlNode;
    let node: ConfigNode;
    if (isScalar(target)) {
      const value = target.value;
      if (
        value !== null &&
        typeof value !== 'string' &&
        typeof value !== 'number' &&
        typeof value !== 'boolean'
      ) {
        this.fail(`unsupported YAML value ${String(value)}`, start);
      }
      // `.inf`, `.nan` and `1e400` are YAML numbers but not JSON ones (RFC 8259 §6): refused
      // as Config.fromObject refuses them, rather than passing `type: number` and printing as null.
      if (typeof value === 'number' && !Number.isFinite(value)) {
        const where = parent === undefined ? [] : [...nodeSegments(parent), key!];
        this.fail(`the number ${value} is not JSON`, start, formatPath(where));
      }
      node = scalarNode(value, parent, key);
    } else if (isMap(target)) {
      const map = mapNode(parent, key);
      this.fill(map, this.entriesOf(target));
      node = map;
    } else if (isSeq(target)) {
      const list = listNode(parent, key);
      for (const item of target.items as unknown[]) {
        if (isPair(item)) {
          // A flow sequence entry written as `[a: 1]` is a single-pair map.
          const map = mapNode(list, list.items.length);
          map.location = this.locate((item.key as YamlNode | null)?.range?.[0]);
          this.fill(map, this.entriesOf(item));
          list.items.push(map);
        } else {
          list.items.push(this.node(item as YamlNode, list, list.items.length));
        }
      }
      node = list;
    } else {
      this.fail('unsupported YAML node', start);
    }
    node.location = this.locate(start);
    return node;
  }

  private fill(map: MapNode, entries: Entries): void {
    for (const [key, pair] of entries) {
      const value = pair.value as YamlNode | null;
      const keyLocation = this.locate((pair.key as YamlNode | null)?.range?.[0]);
      let child: ConfigNode;
      if (value === null) {
        child = scalarNode(null, map, key);
        child.location = keyLocation;
      } else {
        child = this.node(value, map, key);
      }
      child.keyLocation = keyLocation;
      map.entries.set(key, child);
    }
  }
}
