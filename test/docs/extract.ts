/**
 * Finds the fenced ```ts blocks of the README and the manual (docs/*.md), so that the test next
 * to this file can type-check every one of them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface CodeBlock {
  /** The Markdown file, relative to the repository root (`docs/node.md`). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string (`ts`, `sh`, ...). */
  tag: string;
  /** The block's text, without the fences. */
  code: string;
}

/** README.md and every .md file under docs/, sorted. */
export function markdownFiles(root: string): string[] {
  const files = [join(root, 'README.md')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(root, 'docs'));
  return files.sort().map((file) => relative(root, file));
}

/** Every fenced block of a Markdown text (backtick fences of three or more). */
export function extractBlocks(file: string, text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split('\n');
  let open: { fence: string; line: number; tag: string; body: string[] } | undefined;
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (open === undefined) {
      const match = /^(`{3,})\s*([^`\s]*)/.exec(trimmed);
      if (match)
        open = { fence: match[1] ?? '```', line: index + 1, tag: match[2] ?? '', body: [] };
    } else if (trimmed.startsWith(open.fence) && trimmed.slice(open.fence.length).trim() === '') {
      blocks.push({ file, line: open.line, tag: open.tag, code: `${open.body.join('\n')}\n` });
      open = undefined;
    } else {
      open.body.push(raw);
    }
  });
  if (open !== undefined) throw new Error(`${file}:${open.line}: unclosed code fence`);
  return blocks;
}

export function collectBlocks(root: string): CodeBlock[] {
  return markdownFiles(root).flatMap((file) =>
    extractBlocks(file, readFileSync(join(root, file), 'utf8')),
  );
}
