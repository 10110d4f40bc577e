/** Hono with its `hono/aws-lambda` handle. */
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import type { LambdaHandler } from './types.js';

const app = new Hono();
app.get('/users/:id/posts/:postId', (c) =>
  c.json({ id: c.req.param('id'), postId: c.req.param('postId') }),
);
app.post('/echo', async (c) => c.json(await c.req.json()));

export const handler = handle(app) as LambdaHandler;
