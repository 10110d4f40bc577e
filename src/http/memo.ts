/**
 * A bounded memo for parsed header values.
 */

/**
 * Wraps `parse` so each distinct header value is parsed once. Clients send a handful of
 * distinct values (`Accept`, `Accept-Encoding`); a flood of odd ones only clears the memo when
 * it holds `limit` entries, so memory stays bounded whatever a client sends.
 *
 * @example
 * const parseAcceptCached = memoizeHeaderParser(parseAccept, 256);
 */
export function memoizeHeaderParser<T>(
  parse: (header: string) => T,
  limit: number,
): (header: string) => T {
  const memo = new Map<string, T>();
  return (header) => {
    let parsed = memo.get(header);
    if (parsed === undefined) {
      parsed = parse(header);
      if (memo.size >= limit) memo.clear();
      memo.set(header, parsed);
    }
    return parsed;
  };
}
