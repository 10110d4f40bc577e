/**
 * Cold start of the core alone: import, construct, execute one in-process request (what a
 * gateway adapter adds shows as the difference to the restmachine entry).
 */
import { Request, RestApplication } from '../../src/index.js';

const app = new RestApplication();
app.get('/users/{id}/posts/{postId}', ({ id, postId }) => ({ id, postId }));
const response = await app.execute(new Request({ method: 'GET', path: '/users/42/posts/7' }));
if (response.statusCode !== 200) {
  console.error(`unexpected status ${response.statusCode}`);
  process.exitCode = 1;
}
