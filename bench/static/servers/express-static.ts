/** Express 5 with serve-static 2 at /static. */
import type { AddressInfo } from 'node:net';
import express from 'express';
import serveStatic from 'serve-static';
import { announce } from '../../http/servers/ready.js';
import { staticRoot } from './root.js';

const app = express();
app.use('/static', serveStatic(staticRoot()));
const server = app.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
