/** Fastify 5 with @fastify/static 8 at /static/. */
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { announce } from '../../http/servers/ready.js';
import { staticRoot } from './root.js';

const app = Fastify();
await app.register(fastifyStatic, { root: staticRoot(), prefix: '/static/' });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
announce(Number(new URL(address).port));
