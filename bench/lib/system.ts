/**
 * System tools (wrk, nginx, hyperfine, taskset) and CPU pinning. A missing tool is installed
 * with apt-get when that is possible (and the run says so); otherwise the part that needs it is
 * skipped with the reason printed.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

const installAttempted = new Set<string>();
let aptUpdated = false;

export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Makes sure `command` exists, installing Debian's `aptPackage` when it does not. Returns
 * undefined when the tool is there, else the reason it is not.
 */
export function ensureTool(command: string, aptPackage: string): string | undefined {
  if (hasCommand(command)) return undefined;
  if (!installAttempted.has(aptPackage)) {
    installAttempted.add(aptPackage);
    const root = process.getuid?.() === 0;
    const sudo = !root && hasCommand('sudo') ? ['sudo', '-n'] : [];
    if (hasCommand('apt-get') && (root || sudo.length > 0)) {
      console.log(`${command} is missing: installing Debian's ${aptPackage} with apt-get`);
      const run = (args: string[]): number | null => {
        const [program, ...rest] = [...sudo, ...args] as [string, ...string[]];
        return spawnSync(program, rest, {
          stdio: 'inherit',
          env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        }).status;
      };
      if (!aptUpdated) {
        run(['apt-get', 'update', '-qq']);
        aptUpdated = true;
      }
      run(['apt-get', 'install', '-y', '-qq', aptPackage]);
      if (hasCommand(command)) return undefined;
      return `${command} is missing and apt-get install ${aptPackage} failed`;
    }
    return `${command} is missing (install Debian's ${aptPackage}; apt-get needs root or sudo)`;
  }
  return `${command} is missing`;
}

/** Which cores the server and the load generator get; undefined entries mean "not pinned". */
export interface Pinning {
  /** The core for servers and in-process measurements. */
  readonly serverCore: number | undefined;
  /** The core for wrk. */
  readonly loadCore: number | undefined;
  /** Printed with the results: how the processes were pinned, or why they were not. */
  readonly description: string;
}

let pinning: Pinning | undefined;

/** Server on core 0, load generator on core 1, when taskset and two cores exist. */
export function cpuPinning(): Pinning {
  if (pinning !== undefined) return pinning;
  const cores = cpus().length;
  const missing = ensureTool('taskset', 'util-linux');
  if (missing !== undefined) {
    pinning = {
      serverCore: undefined,
      loadCore: undefined,
      description: `not pinned: ${missing}`,
    };
  } else if (cores < 2) {
    pinning = {
      serverCore: undefined,
      loadCore: undefined,
      description: 'not pinned: one core only, so server and load generator share it',
    };
  } else {
    pinning = {
      serverCore: 0,
      loadCore: 1,
      description: 'server (or in-process measurement) pinned to core 0, wrk to core 1 (taskset)',
    };
  }
  return pinning;
}

/** `command args` prefixed with `taskset -c core` when a core is given. */
export function pinned(
  core: number | undefined,
  command: string,
  args: readonly string[],
): [string, string[]] {
  if (core === undefined) return [command, [...args]];
  return ['taskset', ['-c', String(core), command, ...args]];
}
