/** node:http and a hand-written router sending exactly the headers restmachine sends. */
import { sendSpecHeaders, sendSpecPostHeaders, startRaw } from './raw-router.js';

startRaw(sendSpecHeaders, sendSpecPostHeaders);
