/**
 * The realistic notes application (bench/instructions/notes-servers.mjs) listening on a port:
 * `notes.ts restmachine|fastify|hono`. restmachine runs from `dist/` (the harness builds it).
 */
import { NOTES_SERVERS } from '../../instructions/notes-servers.mjs';
import { announce } from './ready.js';

const name = process.argv[2] ?? 'restmachine';
const create = NOTES_SERVERS[`${name}-notes`];
if (create === undefined) throw new Error(`no notes application for ${name}`);
const server = await create();
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  announce(typeof address === 'object' && address !== null ? address.port : 0);
});
