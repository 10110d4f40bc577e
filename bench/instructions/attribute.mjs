/**
 * Where one request's instructions go, function by function: runs a driver twice under
 * `valgrind --tool=callgrind` (few and many requests) with V8 writing a perf map of the code it
 * compiles (`--perf-basic-prof`), names each JIT address from the map, and prints the difference
 * per request for every function's own instructions (self cost; a builtin such as
 * `Builtins_KeyedStoreIC_Megamorphic` counts apart from the JavaScript that called it).
 * With `--beside SERVER` it prints the difference from another server of the same driver
 * instead (`raw-restmachine` beside `restmachine`: restmachine's own overhead, function by
 * function).
 * Usage (after `npm run build`, from this directory):
 *   node attribute.mjs [--top N] [--callers NAME] [--beside SERVER] [--window FEW,MANY] -- <driver.mjs> <driver args>
 * The count argument is replaced by 5,000 and 15,000 (`--window FEW,MANY` for others). Examples:
 *   node attribute.mjs -- drive.mjs restmachine /users/123/posts/456 0
 *   node attribute.mjs --beside raw-restmachine -- drive.mjs restmachine / 0
 *   node attribute.mjs --callers Builtins_KeyedStoreIC -- drive.mjs restmachine-notes notes-get 0 ./notes-servers.mjs
 * (drive.mjs takes the count third: put 0 there; for lambda-drive.mjs it is the last argument).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
// The two request counts; `--window 30000,60000` counts past the optimising compiler's warm-up.
let FEW = 5_000;
let MANY = 15_000;

function parseArguments(argv) {
  const split = argv.indexOf('--');
  if (split === -1)
    throw new Error('usage: node attribute.mjs [--top N] [--callers NAME] -- <driver args>');
  const options = { top: 40, callers: undefined, beside: undefined };
  const own = argv.slice(0, split);
  for (let i = 0; i < own.length; i += 2) {
    if (own[i] === '--top') options.top = Number(own[i + 1]);
    else if (own[i] === '--callers') options.callers = own[i + 1];
    else if (own[i] === '--beside') options.beside = own[i + 1];
    else if (own[i] === '--window') [FEW, MANY] = own[i + 1].split(',').map(Number);
    else throw new Error(`unknown option ${own[i]}`);
  }
  return { options, driver: argv.slice(split + 1) };
}

/** Runs the driver once with `count` in place of its count argument; the profile and the map. */
async function profile(driver, count, dir) {
  const args = [...driver];
  const countAt = args[0] === 'drive.mjs' ? 3 : args.length - 1;
  args[countAt] = String(count);
  const out = join(dir, `callgrind.${count}`);
  const { stderr } = await run(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      process.execPath,
      '--predictable',
      '--perf-basic-prof',
      ...args,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const pid = /^==(\d+)==/m.exec(stderr)?.[1];
  if (pid === undefined) throw new Error(`valgrind printed no process id: ${stderr.slice(-300)}`);
  const map = join(dir, `perf.${count}.map`);
  copyFileSync(`/tmp/perf-${pid}.map`, map);
  rmSync(`/tmp/perf-${pid}.map`);
  return { out, map };
}

/** The JIT code ranges of a perf map, sorted by start address. */
function readPerfMap(file) {
  const ranges = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [start, size, ...name] = line.split(' ');
    if (name.length > 0)
      ranges.push({ start: BigInt(`0x${start}`), size: BigInt(`0x${size}`), name: name.join(' ') });
  }
  return ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

function jitName(ranges, address) {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle];
    if (address < range.start) high = middle - 1;
    else if (address >= range.start + range.size) low = middle + 1;
    else return `JS ${range.name.replace(/file:\/\/\S*\/(dist|bench)\//, '$1/')}`;
  }
  return 'JIT code without a name';
}

/** Self costs per function and call costs per (caller, callee) of one callgrind profile. */
function readProfile({ out, map }) {
  const ranges = readPerfMap(map);
  const names = new Map();
  const keys = new Map();
  const key = (raw) => {
    let found = keys.get(raw);
    if (found === undefined) {
      const plain = raw.split("'")[0];
      found = plain.startsWith('0x') ? jitName(ranges, BigInt(plain)) : plain.replace(/\(.*/, '');
      keys.set(raw, found);
    }
    return found;
  };
  const named = (line, prefix) => {
    const match = new RegExp(`^${prefix}=\\((\\d+)\\)(?: (.*))?`).exec(line);
    if (match[2] !== undefined) names.set(match[1], match[2]);
    return key(names.get(match[1]) ?? '');
  };
  const self = new Map();
  const calls = new Map();
  let current;
  let callee;
  let inCall = false;
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    const first = line.charCodeAt(0);
    if ((first >= 48 && first <= 57) || line.startsWith('+') || line.startsWith('-')) {
      const cost = Number(line.split(' ')[1]);
      if (current === undefined || Number.isNaN(cost)) continue;
      if (inCall) {
        const pair = `${current} -> ${callee}`;
        calls.set(pair, (calls.get(pair) ?? 0) + cost);
        inCall = false;
      } else self.set(current, (self.get(current) ?? 0) + cost);
    } else if (line.startsWith('fn=')) current = named(line, 'fn');
    else if (line.startsWith('cfn=')) callee = named(line, 'cfn');
    else if (line.startsWith('calls=')) inCall = true;
  }
  return { self, calls };
}

function perRequest(few, many) {
  const out = new Map();
  for (const name of new Set([...few.keys(), ...many.keys()])) {
    out.set(name, ((many.get(name) ?? 0) - (few.get(name) ?? 0)) / (MANY - FEW));
  }
  return [...out].sort((a, b) => b[1] - a[1]);
}

/** The instructions per request of each function and of each call, for one driver. */
async function attribute(driver, dir) {
  const [few, many] = await Promise.all([profile(driver, FEW, dir), profile(driver, MANY, dir)]);
  const [a, b] = [readProfile(few), readProfile(many)];
  return { self: perRequest(a.self, b.self), calls: perRequest(a.calls, b.calls) };
}

/** `costs` minus `other`, name by name, largest first. */
function minus(costs, other) {
  const out = new Map(costs);
  for (const [name, cost] of other) out.set(name, (out.get(name) ?? 0) - cost);
  return [...out].sort((a, b) => b[1] - a[1]);
}

const { options, driver } = parseArguments(process.argv.slice(2));
const dir = mkdtempSync(join(tmpdir(), 'attribute-'));
try {
  let { self, calls } = await attribute(driver, dir);
  if (options.beside !== undefined) {
    // The server is drive.mjs's first argument and lambda-drive.mjs's second.
    const other = [...driver];
    other[other[0] === 'drive.mjs' ? 1 : 2] = options.beside;
    const beside = await attribute(other, dir);
    self = minus(self, beside.self);
    calls = minus(calls, beside.calls);
  }
  const total = self.reduce((sum, [, cost]) => sum + cost, 0);
  const what = options.beside === undefined ? '' : ` more than ${options.beside}`;
  console.log(
    `${Math.round(total)} instructions per request${what}; own instructions of each function:`,
  );
  for (const [name, cost] of self.slice(0, options.top)) {
    console.log(`${Math.round(cost).toLocaleString('en-US').padStart(8)}  ${name.slice(0, 150)}`);
  }
  if (options.callers !== undefined) {
    console.log(`\nCalls into ${options.callers}* (callee's instructions, per request):`);
    const into = calls.filter(([pair]) => pair.split(' -> ')[1].startsWith(options.callers));
    for (const [pair, cost] of into.slice(0, 15)) {
      console.log(`${Math.round(cost).toLocaleString('en-US').padStart(8)}  ${pair.slice(0, 170)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
