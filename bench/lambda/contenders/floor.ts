/**
 * The floor: a hand-written handler that reads the event (method, path, body) itself, routes
 * with string checks and returns the same result; nothing a framework could skip.
 */
import type { LambdaHandler } from './types.js';

interface AnyEvent {
  version?: string;
  httpMethod?: string;
  path?: string;
  rawPath?: string;
  body?: string | null;
  isBase64Encoded?: boolean;
  requestContext?: { http?: { method?: string } };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function reply(statusCode: number, body: string): unknown {
  return { statusCode, headers: JSON_HEADERS, body, isBase64Encoded: false };
}

export const handler: LambdaHandler = async (raw) => {
  const event = raw as AnyEvent;
  const v2 = event.version === '2.0';
  const method = v2 ? event.requestContext?.http?.method : event.httpMethod;
  const path = (v2 ? event.rawPath : event.path) ?? '/';
  if (method === 'POST' && path === '/echo') {
    const text = event.isBase64Encoded
      ? Buffer.from(event.body ?? '', 'base64').toString('utf8')
      : (event.body ?? '');
    return reply(200, JSON.stringify(JSON.parse(text)));
  }
  const segments = path.split('/');
  if (
    method === 'GET' &&
    segments.length === 5 &&
    segments[1] === 'users' &&
    segments[3] === 'posts'
  ) {
    const id = decodeURIComponent(segments[2] as string);
    const postId = decodeURIComponent(segments[4] as string);
    return reply(200, JSON.stringify({ id, postId }));
  }
  return reply(404, '{"error":"Not Found"}');
};
