/** restmachine behind its cloud gateway adapter, metrics off (benchmarks measure the request, not the metrics line). */
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { RestApplication } from '../../../src/index.js';
import type { LambdaHandler } from './types.js';

const app = new RestApplication();
app.get('/users/{id}/posts/{postId}', ({ id, postId }) => ({ id, postId }));
app.post('/echo', ({ jsonBody }) => jsonBody);

export const handler = new CloudGatewayAdapter(app, { enableMetrics: false })
  .handler as LambdaHandler;
