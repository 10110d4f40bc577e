/** Hono 4 on @hono/node-server. */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { colonTemplate, decoyRoutes, ROOT_DOCUMENT } from '../../lib/payload.js';
import { announce } from './ready.js';

const app = new Hono();
for (const template of decoyRoutes()) {
  app.get(colonTemplate(template), (c) => c.json(c.req.param()));
}
app.get('/', (c) => c.json(ROOT_DOCUMENT));
app.get('/users/:id/posts/:postId', (c) =>
  c.json({ id: c.req.param('id'), postId: c.req.param('postId') }),
);
app.post('/echo', async (c) => c.json(await c.req.json()));

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
