/** The floor: node:http, a hand-written router, two headers per answer. */
import { sendTwoHeaders, startRaw } from './raw-router.js';

startRaw(sendTwoHeaders);
