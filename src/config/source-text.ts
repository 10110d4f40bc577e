/**
 * Configuration and schema text as the readers take it.
 *
 * YAML 1.2 §5.4 has three line breaks, CR LF, CR and LF, and a CR can stand nowhere else
 * (`b-char` is excluded from every other character class). The `yaml` parser breaks lines only
 * at LF, so a file saved with old Mac line ends (bare CR) would be one long line to it: JSON's
 * `[1,\r2]` came back as `[1, "\r2"]` and YAML's `a: 1\rb: 2` was refused. A bare CR is made an
 * LF first, one character for one, so every offset, line and column stays where it was. No
 * value changes: §5.4 reads every line break in scalar content as LF (and folds it in quoted
 * ones, §7.3.1, as it folds an LF), and in JSON a CR can only be whitespace (RFC 8259 §2: a raw
 * CR inside a string is invalid, before and after).
 *
 * A byte order mark at the start is dropped: it tells the encoding and is no content (YAML 1.2
 * §5.2; RFC 8259 §8.1 lets a JSON parser ignore it, where `JSON.parse` would refuse it). Left in,
 * it counted as a column, so every position on the first line was one too far right.
 */

/** `text` without a leading byte order mark, and with every bare CR (one not followed by LF) made an LF. */
export function normalisedText(text: string): string {
  const content = text.startsWith('\uFEFF') ? text.slice(1) : text;
  return content.includes('\r') ? content.replace(/\r(?!\n)/g, '\n') : content;
}
