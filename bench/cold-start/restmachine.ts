/** Cold start of restmachine on Lambda: import, construct, answer the first event. */
import { handler } from '../lambda/contenders/restmachine.js';
import { answerOnce } from './first-event.js';

await answerOnce(handler);
