/**
 * Calls one Lambda contender's handler N times in-process with the same event, one call at a
 * time, then exits. Run under valgrind by lambda.sh; the contenders and the events are the
 * Lambda section's (bench/lambda), bundled by lambda-bundle.mjs.
 * Usage: node lambda-drive.mjs <bundle dir> <contender> <event> <calls>
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [, , dir, contender, eventName, total = '1000'] = process.argv;
const { handler } = await import(pathToFileURL(join(dir, `${contender}.mjs`)).href);
const { makeEvents, CONTEXT: context } = await import(pathToFileURL(join(dir, 'events.mjs')).href);
const event = makeEvents()[eventName];
if (event === undefined) throw new Error(`unknown event ${eventName}`);
const calls = Number(total);
for (let i = 0; i < calls; i++) {
  const result = await handler(event, context);
  if (result.statusCode !== 200) throw new Error(`${contender} answered ${result.statusCode}`);
}
process.exit(0);
