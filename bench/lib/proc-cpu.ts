/**
 * CPU time a server process (and its children, such as nginx's worker) has used, read from
 * /proc: on a machine shared with other work, CPU time per request is steadier than requests per
 * second, which also counts the time the server waited for its core.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const text = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim();
    const value = Number(text);
    ticksPerSecond = Number.isFinite(value) && value > 0 ? value : 100;
  }
  return ticksPerSecond;
}

function ownTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; the fields after it are space-separated.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return Number(fields[11]) + Number(fields[12]);
}

function children(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return text === '' ? [] : text.split(' ').map(Number);
  } catch {
    return [];
  }
}

/** Seconds of CPU used so far by `pid` and its descendants; undefined when /proc cannot tell. */
export function processTreeCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let ticks = 0;
    const pending = [pid];
    while (pending.length > 0) {
      const next = pending.pop() as number;
      ticks += ownTicks(next);
      pending.push(...children(next));
    }
    return ticks / clockTicks();
  } catch {
    return undefined;
  }
}
