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
 */

/** `text` with every bare CR (one not followed by LF) made an LF. */
export function normalisedText(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}
