/** Fastify 5, logger off (its default). */
import Fastify from 'fastify';
import { colonTemplate, decoyRoutes, ROOT_DOCUMENT } from '../../lib/payload.js';
import { announce } from './ready.js';

const app = Fastify();
for (const template of decoyRoutes()) {
  app.get(colonTemplate(template), async (request) => request.params);
}
app.get('/', async () => ROOT_DOCUMENT);
app.get<{ Params: { id: string; postId: string } }>(
  '/users/:id/posts/:postId',
  async (request) => ({
    id: request.params.id,
    postId: request.params.postId,
  }),
);
app.post('/echo', async (request) => request.body);

const address = await app.listen({ port: 0, host: '127.0.0.1' });
announce(Number(new URL(address).port));
