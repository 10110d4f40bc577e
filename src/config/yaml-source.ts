/**
 * YAML text to a node tree, keeping the line and column of every key and value. YAML 1.2 with
 * the core schema, so `yes` and `on` stay strings; merge keys (`<<: *defaults`) are honoured.
 */

import {
  type Alias,
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Pair,
  parseDocument,
  type Node as YamlNode,
} from 'yaml';
import { ConfigMalformedError } from './errors.js';
import type { PathSegment } from './path.js';
import {
  type ConfigNode,
  type ContainerNode,
  type Location,
  listNode,
  type MapNode,
  mapNode,
  nodePath,
  scalarNode,
} from './source.js';

/** Aliases copy what they point to; this bounds the copies ("billion laughs" documents). */
const MAX_NODES = 1_000_000;

/** Parses YAML text into nodes. Syntax errors are {@link ConfigMalformedError}s with a position. */
export function nodesFromYaml(text: string, file?: string): ConfigNode {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    version: '1.2',
    schema: 'core',
    merge: true,
    // The parser's own duplicate check compares every pair of keys (quadratic in a map's size);
    // TreeBuilder.fillMap checks with a set instead.
    uniqueKeys: false,
  });
  const [error] = document.errors;
  if (error) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new ConfigMalformedError(`invalid YAML: ${error.message}`, { file, line, column: col });
  }
  return new TreeBuilder(document, lineCounter, file).build();
}

class TreeBuilder {
  private nodeCount = 0;

  constructor(
    private readonly document: Document,
    private readonly lineCounter: LineCounter,
    private readonly file: string | undefined,
  ) {}

  build(): ConfigNode {
    const contents = this.document.contents;
    if (contents === null) {
      const root = scalarNode(null, undefined, undefined);
      root.location = { line: 1, column: 1 };
      return root;
    }
    return this.node(contents, undefined, undefined);
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

  private resolveAlias(alias: Alias): YamlNode {
    const target = alias.resolve(this.document);
    if (!target) this.fail(`unknown alias *${alias.source}`, alias.range?.[0]);
    return target as YamlNode;
  }

  private node(
    yamlNode: YamlNode,
    parent: ContainerNode | undefined,
    key: PathSegment | undefined,
  ): ConfigNode {
    if (++this.nodeCount > MAX_NODES) {
      this.fail('the document expands to too many values (check its aliases)', yamlNode.range?.[0]);
    }
    const start = yamlNode.range?.[0];
    const target = isAlias(yamlNode) ? this.resolveAlias(yamlNode) : yamlNode;
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
      node = scalarNode(value, parent, key);
    } else if (isMap(target)) {
      const map = mapNode(parent, key);
      this.fillMap(map, target.items as Pair[]);
      node = map;
    } else if (isSeq(target)) {
      const list = listNode(parent, key);
      for (const item of target.items as unknown[]) {
        if (isPair(item)) {
          // A flow sequence entry written as `[a: 1]` is a single-pair map.
          const map = mapNode(list, list.items.length);
          map.location = this.locate((item.key as YamlNode | null)?.range?.[0]);
          this.fillMap(map, [item as Pair]);
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

  private fillMap(map: MapNode, pairs: readonly Pair[]): void {
    const explicitKeys = new Set<string>();
    for (const pair of pairs) {
      if (this.isMerge(pair)) continue;
      const key = this.keyOf(pair, map);
      if (explicitKeys.has(key)) {
        this.fail(
          `invalid YAML: duplicate key ${JSON.stringify(key)}`,
          (pair.key as YamlNode | null)?.range?.[0],
        );
      }
      explicitKeys.add(key);
    }
    for (const pair of pairs) {
      if (this.isMerge(pair)) {
        for (const source of this.mergeSources(pair)) {
          for (const merged of source.items as Pair[]) {
            const key = this.keyOf(merged, map);
            if (explicitKeys.has(key) || map.entries.has(key)) continue;
            this.addEntry(map, key, merged);
          }
        }
      } else {
        this.addEntry(map, this.keyOf(pair, map), pair);
      }
    }
  }

  private addEntry(map: MapNode, key: string, pair: Pair): void {
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

  private isMerge(pair: Pair): boolean {
    return isScalar(pair.key) && typeof pair.key.value === 'symbol';
  }

  /** The maps a merge key brings in, in order of precedence. */
  private mergeSources(pair: Pair): Array<{ items: unknown[] }> {
    const value = pair.value as YamlNode | null;
    const offset = (pair.key as YamlNode).range?.[0];
    const asMap = (node: YamlNode) => {
      const target = isAlias(node) ? this.resolveAlias(node) : node;
      if (!isMap(target)) this.fail('a merge key (<<) takes a map or a list of maps', offset);
      return target;
    };
    if (value !== null && isSeq(value)) return (value.items as YamlNode[]).map(asMap);
    if (value === null) this.fail('a merge key (<<) takes a map or a list of maps', offset);
    return [asMap(value)];
  }

  private keyOf(pair: Pair, map: MapNode): string {
    let key = pair.key as YamlNode | null;
    if (key !== null && isAlias(key)) key = this.resolveAlias(key);
    if (key === null) return '';
    if (!isScalar(key)) {
      this.fail(
        'only scalar keys are supported (a map or list cannot be a key)',
        key.range?.[0],
        nodePath(map),
      );
    }
    const value = key.value;
    return value === null || value === undefined ? '' : String(value);
  }
}
