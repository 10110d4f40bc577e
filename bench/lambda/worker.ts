/**
 * Lambda worker: per-event cost of one contender's handler, in-process, for each event kind.
 * Before measuring it checks the answer and whether the handler changed the event it was given.
 * Arguments: `<contender> <durationMs> <warmupMs> <bundle of the contender's handler> [events]`,
 * events being a comma-separated subset of the event names (all four by default).
 */
import { isDeepStrictEqual } from 'node:util';
import { ECHO_DOCUMENT, PARAMS_DOCUMENT } from '../lib/payload.js';
import { type Cost, costPerCall, report, workerArgs } from '../lib/timing.js';
import type { LambdaHandler } from './contenders/types.js';
import { CONTEXT, EVENT_LABELS, type EventName, makeEvents } from './events.js';

const args = workerArgs();
const modulePath = args.extra[0];
if (modulePath === undefined) throw new Error('worker needs the contender bundle');
const { handler } = (await import(modulePath)) as { handler: LambdaHandler };

const EXPECTED: Record<EventName, unknown> = {
  'rest-get': PARAMS_DOCUMENT,
  'rest-post': ECHO_DOCUMENT,
  'http-get': PARAMS_DOCUMENT,
  'http-post': ECHO_DOCUMENT,
};

function check(name: EventName, result: unknown): void {
  const { statusCode, body, isBase64Encoded } = (result ?? {}) as {
    statusCode?: number;
    body?: string;
    isBase64Encoded?: boolean;
  };
  const text = isBase64Encoded ? Buffer.from(body ?? '', 'base64').toString('utf8') : (body ?? '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (statusCode !== 200 || !isDeepStrictEqual(parsed, EXPECTED[name])) {
    throw new Error(`${args.contender} answered ${name} with ${statusCode}: ${text.slice(0, 200)}`);
  }
}

/** Top-level keys (and requestContext keys) whose value differs after the call. */
function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed: string[] = [];
  for (const key of keys) {
    if (isDeepStrictEqual(before[key], after[key])) continue;
    const inner = before[key];
    if (key === 'requestContext' && typeof inner === 'object' && inner !== null) {
      for (const sub of changedKeys(
        inner as Record<string, unknown>,
        after[key] as Record<string, unknown>,
      )) {
        changed.push(`requestContext.${sub}`);
      }
    } else {
      changed.push(key);
    }
  }
  return changed;
}

const events = makeEvents();
const only = args.extra[1]?.split(',');
const costs: Record<string, Cost> = {};
const notes: string[] = [];
for (const name of Object.keys(events) as EventName[]) {
  if (only !== undefined && !only.includes(name)) continue;
  const event = events[name];
  const pristine = structuredClone(event);
  check(name, await handler(event, CONTEXT));
  const changed = changedKeys(
    pristine as unknown as Record<string, unknown>,
    event as unknown as Record<string, unknown>,
  );
  if (changed.length > 0) {
    notes.push(`${args.contender} mutates the ${EVENT_LABELS[name]} event (${changed.join(', ')})`);
  }
  const call = (): Promise<unknown> => handler(event, CONTEXT);
  await costPerCall(call, args.warmupMs);
  costs[name] = await costPerCall(call, args.durationMs);
  // The event is reused while measuring; the answer must still be right at the end.
  check(name, await handler(event, CONTEXT));
}
report({ costs, notes });
