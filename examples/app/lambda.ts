/**
 * The bookmarks API on AWS Lambda, behind an HTTP API or a Function URL (template.yaml). The
 * same application as `npm start`: restmachine runs its startup (opening the database and
 * migrating it) on the first event an instance receives, and reuses it for every later one.
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
  // The front-end is static files: serve them from S3 or a CDN, and the API from here.
  frontEnd: false,
});

export const handler = new CloudGatewayAdapter(app, { serviceName: 'bookmarks' }).handler;
