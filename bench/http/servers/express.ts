/** Express 5 with its JSON body parser (and its default weak ETags). */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { colonTemplate, decoyRoutes, ROOT_DOCUMENT } from '../../lib/payload.js';
import { announce } from './ready.js';

const app = express();
for (const template of decoyRoutes()) {
  app.get(colonTemplate(template), (req, res) => {
    res.json(req.params);
  });
}
app.get('/', (_req, res) => {
  res.json(ROOT_DOCUMENT);
});
app.get('/users/:id/posts/:postId', (req, res) => {
  res.json({ id: req.params.id, postId: req.params.postId });
});
app.post('/echo', express.json(), (req, res) => {
  res.json(req.body);
});

const server = app.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
