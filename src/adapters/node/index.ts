/**
 * restmachine/node: run an application on a Node HTTP or HTTPS server.
 *
 * @example
 * import { serve } from 'restmachine/node';
 * const server = await serve(app);
 * console.log(`Listening on ${server.url}`);
 */
export { NodeAdapter } from './adapter.js';
export { serveCluster } from './cluster.js';
export type { ClusterHandle, ClusterOptions } from './cluster-types.js';
export { NodeRequestBody } from './request.js';
export type { ServeHandle, ServeOptions } from './serve.js';
export { serve } from './serve.js';
export type { NodeAdapterOptions, ServedApplication, TrustProxy } from './types.js';
