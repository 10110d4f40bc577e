/** Cold start of the peer on Lambda: import, construct, answer the first event. */
import { handler } from '../lambda/contenders/powertools.js';
import { answerOnce } from './first-event.js';

await answerOnce(handler);
