/**
 * The `Vary` response header (RFC 9110 §12.5.5): the request headers a response depends on.
 */
import type { MultiValueHeaders } from './headers.js';

/**
 * Adds `name` to `Vary` unless it is already listed (in any case, on any field line) or `Vary`
 * is `*`, which already says the response varies on everything.
 *
 * @example
 * addVary(response.headers, 'Origin');
 */
export function addVary(headers: MultiValueHeaders, name: string): void {
  const lower = name.toLowerCase();
  for (const line of headers.getAll('vary')) {
    for (const member of line.split(',')) {
      const token = member.trim().toLowerCase();
      if (token === '*' || token === lower) return;
    }
  }
  headers.add('Vary', name);
}
