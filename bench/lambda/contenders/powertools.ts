/** Powertools for AWS Lambda's HTTP event handler. */
import { Router } from '@aws-lambda-powertools/event-handler/http';
import type { HandlerResponse } from '@aws-lambda-powertools/event-handler/types';
import type { LambdaHandler } from './types.js';

const app = new Router();
app.get('/users/:id/posts/:postId', async ({ params }) => ({
  id: params.id,
  postId: params.postId,
}));
app.post('/echo', async ({ req }) => (await req.json()) as HandlerResponse);

export const handler: LambdaHandler = (event, context) => app.resolve(event, context);
