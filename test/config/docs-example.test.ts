// biome-ignore-all lint/suspicious/noTemplateCurlyInString: "${...}" in plain strings is the syntax under test.
/**
 * The leading example of docs/configuration.md, run as written: its schema, its configuration
 * and the error messages the page shows must be what the library does.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Config, Schema } from '../../src/config/index.js';
import { thrown } from './helpers.js';

const page = readFileSync(
  join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'),
  'utf8',
);

/** The code blocks of the page, in order, without their fences. */
const blocks = [...page.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, language, body]) => ({
  language,
  body: body!,
}));

/**
 * A YAML block whose first line names its file (`# config.yaml`), as a reader copies it: the
 * comment line included, so the lines in the messages the page shows are those of the copy.
 */
function file(name: string): string {
  const block = blocks.find(({ body }) => body.startsWith(`# ${name}\n`));
  if (!block) throw new Error(`docs/configuration.md has no block for ${name}`);
  return block.body;
}

/** The first `text` block after `marker`. */
function shownAfter(marker: string): string {
  const start = page.indexOf(marker);
  expect(start).toBeGreaterThan(-1);
  const match = /```text\n([\s\S]*?)\n```/.exec(page.slice(start));
  return match![1]!;
}

describe('the example of docs/configuration.md', () => {
  const schema = Schema.fromYaml(file('config.schema.yaml'));
  const config = (env: Record<string, string>) =>
    Config.fromYaml(file('config.yaml'), { filename: 'config.yaml', env });

  it('returns the settings it shows for DB_PORT=5432', () => {
    expect(config({ DB_PORT: '5432' }).validate(schema, { applyDefaults: true })).toEqual({
      app: { name: 'orders', debug: false },
      database: { host: 'localhost', port: 5432, ssl: true },
    });
  });

  it('shows the message DB_PORT=70000 gives, the value redacted', () => {
    const error = thrown(() => config({ DB_PORT: '70000' }).validate(schema));
    expect(error.message).toBe(shownAfter('With\n`DB_PORT=70000`'));
  });

  it('shows the lines a file with several problems gives', () => {
    const broken = 'app:\n  name: ""\ndatabase:\n  host: db\n  port: 70000\ncache: true\n';
    const error = thrown(() =>
      Config.fromYaml(broken, { filename: 'broken.yaml' }).validate(schema),
    );
    expect(error.message).toBe(shownAfter('A file with several problems'));
  });
});
