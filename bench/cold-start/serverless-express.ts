/** Cold start of the peer on Lambda: import, construct, answer the first event. */
import { handler } from '../lambda/contenders/serverless-express.js';
import { answerOnce } from './first-event.js';

await answerOnce(handler);
