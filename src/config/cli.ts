#!/usr/bin/env node
/**
 * `restmachine-config`: validate, read and dump configuration files from the shell.
 *
 * Exit status: 0 on success, 1 when the configuration is invalid or cannot be resolved (the
 * error lines go to stderr) or the output cannot be written, 2 on a usage error. A reader that
 * stops early (`| head`) is not an error: see {@link handleOutputErrors}.
 */

import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { Config } from './config.js';
import { ConfigError } from './errors.js';
import { PathSyntaxError, parsePath } from './path.js';
import { Schema } from './schema.js';

const USAGE = `Usage:
  restmachine-config validate <config> --schema <schema> [--raw]
  restmachine-config get <config> <path>
  restmachine-config dump <config> [--format json|yaml]

Commands:
  validate   resolve every interpolation and validate against the schema
             (--raw: check the shape without resolving; placeholders pass)
  get        print the resolved value at a dotted path (scalars raw, the rest as JSON)
  dump       print the whole resolved configuration (default format: yaml)

Exit status: 0 success, 1 invalid or unresolvable configuration, 2 usage error.`;

class UsageError extends Error {}

function run(args: readonly string[]): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`restmachine-config: ${reason}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...operands] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    switch (command) {
      case 'validate':
        return validate(operands, values);
      case 'get':
        return get(operands, values);
      case 'dump':
        return dump(operands, values);
      case undefined:
        throw new UsageError('a command is required');
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`restmachine-config: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      schema: { type: 'string', short: 's' },
      raw: { type: 'boolean' },
      format: { type: 'string', short: 'f' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

type Values = ReturnType<typeof parse>['values'];

/** Rejects options that belong to another command. */
function only(values: Values, command: string, allowed: ReadonlyArray<keyof Values>): void {
  for (const option of Object.keys(values) as Array<keyof Values>) {
    if (!allowed.includes(option)) throw new UsageError(`--${option} does not apply to ${command}`);
  }
}

function operandsOf(
  command: string,
  operands: readonly string[],
  names: readonly string[],
): string[] {
  if (operands.length !== names.length) {
    const expected = names.map((name) => `<${name}>`).join(' ');
    throw new UsageError(
      `${command} takes ${expected} (got ${operands.length} argument${operands.length === 1 ? '' : 's'})`,
    );
  }
  return [...operands];
}

function validate(operands: readonly string[], values: Values): number {
  only(values, 'validate', ['schema', 'raw']);
  const [file] = operandsOf('validate', operands, ['config']) as [string];
  if (values.schema === undefined) throw new UsageError('validate needs --schema <schema>');
  const schema = Schema.fromFile(values.schema);
  const config = Config.fromYamlFile(file);
  if (values.raw) config.validateRaw(schema);
  else config.validate(schema);
  process.stdout.write(
    `${file}: valid${values.raw ? ' (raw: interpolations not resolved)' : ''}\n`,
  );
  return 0;
}

function get(operands: readonly string[], values: Values): number {
  only(values, 'get', []);
  const [file, path] = operandsOf('get', operands, ['config', 'path']) as [string, string];
  // A path that cannot be read is a mistake in the command line, whatever the file holds.
  try {
    parsePath(path);
  } catch (error) {
    if (error instanceof PathSyntaxError) {
      throw new UsageError(`invalid path ${JSON.stringify(path)}: ${error.message}`);
    }
    throw error;
  }
  const value = Config.fromYamlFile(file).get(path);
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'object' && value !== null
        ? JSON.stringify(value, null, 2)
        : String(value);
  process.stdout.write(`${text}\n`);
  return 0;
}

function dump(operands: readonly string[], values: Values): number {
  only(values, 'dump', ['format']);
  const [file] = operandsOf('dump', operands, ['config']) as [string];
  const format = values.format ?? 'yaml';
  if (format !== 'json' && format !== 'yaml') {
    throw new UsageError(`--format must be json or yaml (got ${JSON.stringify(format)})`);
  }
  const value = Config.fromYamlFile(file).resolve();
  process.stdout.write(
    format === 'json'
      ? `${JSON.stringify(value, null, 2)}\n`
      : stringify(value, { version: '1.2' }),
  );
  return 0;
}

/**
 * Node ignores SIGPIPE, so a write to a pipe whose reader has gone fails with EPIPE, and an
 * unhandled 'error' event would end the process with a stack trace and status 1 (which means an
 * invalid configuration, docs/configuration.md). The command has already decided its status by
 * then, and the reader chose to stop, so it ends quietly with that status (0 for `get` and
 * `dump`), as most Node command-line tools do, not with 141 (128 + SIGPIPE) as a shell reports
 * a C tool killed by the signal. Other write errors (a full disk) get one line, not a stack trace.
 */
function handleOutputErrors(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && stream === process.stdout) {
      process.stderr.write(
        `restmachine-config: cannot write the output (${error.code ?? error.message})\n`,
      );
      process.exit(1);
    }
    // Exiting now drops whatever is still queued for a reader that will never read it.
    process.exit(process.exitCode ?? 0);
  });
}

handleOutputErrors(process.stdout);
handleOutputErrors(process.stderr);
process.exitCode = run(process.argv.slice(2));
