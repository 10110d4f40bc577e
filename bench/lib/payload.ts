/**
 * The request bodies and expected responses every contender must produce, shared by the HTTP,
 * Lambda and cold-start sections.
 */

import ECHO_JSON from './echo-document.json' with { type: 'json' };

/**
 * A JSON document of about 1 KB (what the POST /echo scenarios send). It lives in a JSON file
 * so that bench/instructions/servers.mjs, which runs under plain node, sends the same one.
 */
export const ECHO_DOCUMENT = ECHO_JSON;

export const ECHO_BODY = JSON.stringify(ECHO_DOCUMENT);

/** GET / answers this. */
export const ROOT_DOCUMENT = { hello: 'world' };

/** GET /users/{id}/posts/{postId} with these values answers `{ id, postId }`. */
export const USER_ID = '42';
export const POST_ID = '7';
export const PARAMS_PATH = `/users/${USER_ID}/posts/${POST_ID}`;
export const PARAMS_DOCUMENT = { id: USER_ID, postId: POST_ID };

/**
 * 100 parameterised routes registered before the measured ones, half sharing the measured
 * route's first segments (the router must look past them), half with other prefixes.
 */
export function decoyRoutes(): string[] {
  return Array.from({ length: 100 }, (_, i) =>
    i % 2 === 0 ? `/users/{id}/decoy${i}/{postId}` : `/decoy${i}/{id}/posts/{postId}`,
  );
}

/** `{name}` templates in the `:name` form of Fastify, Hono, Express and Powertools. */
export function colonTemplate(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}
