/** restmachine's StaticRouter mounted at /static on serve(). */

import { serve } from '../../../src/adapters/node/index.js';
import { RestApplication } from '../../../src/index.js';
import { StaticRouter } from '../../../src/static/index.js';
import { announce } from '../../http/servers/ready.js';
import { staticRoot } from './root.js';

const app = new RestApplication();
app.mount('/static', new StaticRouter(staticRoot()));
const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
announce(server.port);
