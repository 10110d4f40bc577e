/** Express 5 behind @codegenie/serverless-express 4. */
import { configure } from '@codegenie/serverless-express';
import express from 'express';
import type { LambdaHandler } from './types.js';

const app = express();
app.use(express.json());
app.get('/users/:id/posts/:postId', (req, res) => {
  res.json({ id: req.params.id, postId: req.params.postId });
});
app.post('/echo', (req, res) => {
  res.json(req.body);
});

const proxy = configure({ app });

export const handler: LambdaHandler = (event, context) =>
  Promise.resolve(proxy(event, context, () => undefined));
