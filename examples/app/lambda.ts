/**
 * The bookmarks API on AWS Lambda, behind an HTTP API or a Function URL (template.yaml). The
 * same application as `npm start`: the adapter starts its startup (opening the database and
 * migrating it) when this module loads, in the instance's cold start; every event waits for it,
 * and the later ones reuse it.
 *
 * With DATABASE_URL (the template's `DatabaseUrl` parameter) the data is in PostgreSQL, shared
 * by every instance. Without it each instance has its own embedded database in memory, lost
 * when the instance is: enough to try a deployment, not to keep bookmarks.
 */
import { CloudGatewayAdapter } from '../../src/adapters/aws/index.js';
import { createApp } from './app.js';

const app = createApp({
  databaseUrl: process.env.DATABASE_URL,
  seedFile: process.env.BOOKMARKS_SEED,
  // The front-end is static files: serve them from the API's origin (a CloudFront distribution
  // with S3 beside the API), since the page calls /api/v1 by a relative path, without CORS.
  frontEnd: false,
});

export const handler = new CloudGatewayAdapter(app, { serviceName: 'bookmarks' }).handler;
