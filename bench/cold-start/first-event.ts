/** Sends the first event of a cold start and fails the process when the answer is wrong. */
import type { LambdaHandler } from '../lambda/contenders/types.js';
import { CONTEXT, makeEvents } from '../lambda/events.js';

export async function answerOnce(handler: LambdaHandler): Promise<void> {
  const result = (await handler(makeEvents()['http-get'], CONTEXT)) as { statusCode?: number };
  if (result.statusCode !== 200) {
    console.error(`unexpected answer ${JSON.stringify(result)}`);
    process.exitCode = 1;
  }
}
