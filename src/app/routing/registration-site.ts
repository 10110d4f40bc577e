/**
 * Where a route was registered, so that a duplicate route error can point at both
 * registrations (docs/application.md, "Registering routes"). The stack is captured when the
 * route is created and formatted only if an error needs it: V8 captures the frames eagerly but
 * builds the `stack` text on first read, so an application without mistakes pays about a
 * microsecond per route.
 */

import { SetupError } from '../../errors.js';

// This file's place in the package (`src/app/routing/` in the sources, `dist/app/routing/`
// once built): every frame under the directory above `app/` is restmachine's own and skipped.
const OWN_FILE = /^(.*)\/app\/routing\/registration-site\.[cm]?[jt]s$/;

// `    at name (file:line:column)` or `    at file:line:column` (V8); `name@file:line:column`
// (SpiderMonkey, JavaScriptCore).
const FRAME = /(?:\(|@|at )([^()@\s][^()@]*?):(\d+):(\d+)\)?$/;

interface Frame {
  file: string;
  line: string;
  column: string;
}

function parseFrames(stack: string): Frame[] {
  const frames: Frame[] = [];
  for (const text of stack.split('\n')) {
    const match = FRAME.exec(text.trim());
    if (match !== null) {
      frames.push({
        file: match[1] as string,
        line: match[2] as string,
        column: match[3] as string,
      });
    }
  }
  return frames;
}

function shorten(file: string): string {
  const path = file.startsWith('file://') ? decodeURI(file.slice('file://'.length)) : file;
  const cwd = (globalThis as { process?: { cwd?: () => string } }).process?.cwd?.();
  return cwd !== undefined && path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
}

// Registrations are numbered as they happen, so that a duplicate route keeps the one registered
// first whatever the order its routers were mounted in.
let registrations = 0;

/** The stack at a route's registration, and its place among the application's registrations. */
export class RegistrationSite {
  readonly #trace = new Error();
  /** How many routes were registered before this one, in this process. */
  readonly order = registrations++;

  /**
   * `file:line:column` of the application code that registered the route (relative to the
   * working directory), or `undefined` when the runtime gives no stack or the application is
   * bundled into the same file as restmachine.
   */
  describe(): string | undefined {
    const frames = parseFrames(this.#trace.stack ?? '');
    const own = frames[0];
    if (own === undefined) return undefined;
    const root = OWN_FILE.exec(own.file.replace(/\\/g, '/'))?.[1];
    const isOwn = (frame: Frame) =>
      frame.file === own.file ||
      (root !== undefined && frame.file.replace(/\\/g, '/').startsWith(`${root}/`));
    const caller = frames.find((frame) => !isOwn(frame));
    return caller === undefined
      ? undefined
      : `${shorten(caller.file)}:${caller.line}:${caller.column}`;
  }
}

/** A registration as the duplicate route error shows it. */
export interface Registration {
  route: { readonly path: string; readonly site: RegistrationSite };
  /** The full template, mount prefixes included. */
  template: string;
}

function describeRegistration({ route, template }: Registration): string {
  const site = route.site.describe();
  const where = site === undefined ? 'somewhere the runtime does not tell' : `at ${site}`;
  if (template === route.path) return where;
  const prefix = route.path === '/' ? template : template.slice(0, -route.path.length);
  return `${where} (as ${route.path} in a router mounted at ${prefix})`;
}

/** The message of a DUPLICATE_ROUTE error: the route and both places it was registered. */
export function duplicateRouteMessage(
  method: string,
  first: Registration,
  second: Registration,
): string {
  const same = first.template === second.template;
  const subject = same
    ? `${method} ${first.template} is registered twice`
    : `${method} ${second.template} matches the same requests as ${method} ${first.template}`;
  return `${subject}: first ${describeRegistration(first)}, then ${describeRegistration(second)}`;
}

/**
 * Which of two registrations of one route answers (docs/hooks-and-scope.md), the DUPLICATE_ROUTE
 * error pushed to `problems`: the one registered first, unless only the other is guarded (then
 * the guarded one). Two copies guarded differently (a route mounted after startup under a
 * weaker hook than the one in service) fail closed: the first is kept with the error as its
 * problem, so neither answers. `guardOf` keys a copy's authorization, `undefined` for none.
 */
export function keptDuplicate<Copy extends Registration & { problem: SetupError | undefined }>(
  method: string,
  previous: Copy,
  added: Copy,
  guardOf: (copy: Copy) => string | undefined,
  problems: SetupError[],
): Copy {
  const [first, second] =
    previous.route.site.order <= added.route.site.order ? [previous, added] : [added, previous];
  const duplicate = new SetupError('DUPLICATE_ROUTE', duplicateRouteMessage(method, first, second));
  problems.push(duplicate);
  const [firstGuard, secondGuard] = [guardOf(first), guardOf(second)];
  if (secondGuard !== undefined && firstGuard === undefined) return second;
  if (firstGuard !== undefined && secondGuard !== undefined && firstGuard !== secondGuard) {
    first.problem ??= duplicate;
  }
  return first;
}
