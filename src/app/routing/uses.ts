/**
 * `route.uses(...names)` tells typed clients which validators describe the route's request
 * (route-types.ts). The types cannot see what a handler injects, so the routing table checks it:
 * a name the route does not reach, or one that is no Standard Schema validator, would make the
 * client's types lie.
 */
import { SetupError } from '../../errors.js';
import type { Binding } from '../inject/bindings.js';

export function checkUses(
  settings: Readonly<Record<string, unknown>>,
  reached: ReadonlySet<string>,
  bindings: ReadonlyMap<string, Binding>,
  label: string,
): void {
  const used = settings.uses as readonly string[] | undefined;
  if (used === undefined) return;
  for (const name of used) {
    if (bindings.get(name)?.kind !== 'schema') {
      throw new SetupError(
        'UNKNOWN_DEPENDENCY',
        `${label}: uses("${name}") names no validator registered with a Standard Schema`,
      );
    }
    if (!reached.has(name)) {
      throw new SetupError(
        'INVALID_HANDLER',
        `${label}: uses("${name}"), but neither the handler nor its providers inject "${name}"`,
      );
    }
  }
}
