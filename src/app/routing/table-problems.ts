/**
 * What a routing table's problems do (docs/hooks-and-scope.md): found before startup, they make
 * it refuse; registered after it, they are logged once while the routes they concern fail closed.
 */
import { SetupError } from '../../errors.js';
import type { Logger } from '../logger.js';
import { type RoutingTable, unguardedProblem } from './routing-table.js';

/**
 * What makes startup refuse `table`: its first problem, or, under `authorization: 'required'`,
 * the routes no authorization hook guards, all named; `undefined` when it may start.
 */
export function startupProblem(
  table: RoutingTable,
  authorizationRequired: boolean,
): SetupError | undefined {
  if (table.problems.length > 0) return table.problems[0];
  if (!authorizationRequired || table.unguarded.length === 0) return undefined;
  return new SetupError(
    'UNGUARDED_ROUTE',
    `authorization: 'required', but no authorization hook guards ${table.unguarded.join(', ')}; ` +
      'register authorized() on their router (or with { global: true }), or mark them .public()',
  );
}

/**
 * Startup refuses a table with problems; one registered after startup cannot be refused, so
 * the routes it concerns fail closed (500) or keep their first registration, and each problem
 * is logged once (`logged` holds the messages already logged).
 */
export function logLateProblems(
  table: RoutingTable,
  logged: Set<string>,
  logger: Logger,
  authorizationRequired: boolean,
): void {
  const unguarded = authorizationRequired ? table.unguarded.map(unguardedProblem) : [];
  for (const problem of [...table.problems, ...unguarded]) {
    if (logged.has(problem.message)) continue;
    logged.add(problem.message);
    logger.error(`Registration after startup: ${problem.message}`, { code: problem.code });
  }
}
