/** restmachine on its Node server, serve(). */
import { serve } from '../../../src/adapters/node/index.js';
import { RestApplication } from '../../../src/index.js';
import { decoyRoutes, ROOT_DOCUMENT } from '../../lib/payload.js';
import { announce } from './ready.js';

const app = new RestApplication();
for (const template of decoyRoutes()) {
  app.get(template, ({ pathParams }) => pathParams);
}
app.get('/', () => ROOT_DOCUMENT);
app.get('/users/{id}/posts/{postId}', ({ id, postId }) => ({ id, postId }));
app.post('/echo', ({ jsonBody }) => jsonBody);

const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
announce(server.port);
