/** node:http and a hand-written router sending the five headers restmachine sends. */
import { sendSpecHeaders, startRaw } from './raw-router.js';

startRaw(sendSpecHeaders);
