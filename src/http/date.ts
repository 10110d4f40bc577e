/**
 * HTTP dates (RFC 9110 §5.6.7). Recipients accept all three formats; senders use IMF-fixdate,
 * always in GMT.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_INDEX = new Map(MONTHS.map((name, index) => [name, index]));

// Sun, 06 Nov 1994 08:49:37 GMT
const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
// Sunday, 06-Nov-94 08:49:37 GMT
const RFC_850 =
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
// Sun Nov  6 08:49:37 1994
const ASCTIME =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function build(
  year: number,
  monthName: string,
  day: number,
  hour: number,
  minute: number,
  second: number,
): Date | undefined {
  const month = MONTH_INDEX.get(monthName);
  if (month === undefined || hour > 23 || minute > 59 || second > 60 || day < 1) return undefined;
  // setUTCFullYear, not Date.UTC: Date.UTC maps the years 0-99 to 1900-1999.
  const date = new Date(0);
  // A leap second (:60) is read as :59; HTTP dates cannot say anything finer anyway.
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hour, minute, Math.min(second, 59), 0);
  // Reject dates that the setters silently rolled over (31 Feb becomes 3 Mar).
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month) return undefined;
  return date;
}

/** Parses an HTTP date in any of the three formats; `undefined` when it is not one. */
export function parseHttpDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let match = IMF_FIXDATE.exec(text);
  if (match !== null) {
    const [, day, month, year, hour, minute, second] = match as unknown as string[];
    return build(+year!, month!, +day!, +hour!, +minute!, +second!);
  }
  match = RFC_850.exec(text);
  if (match !== null) {
    const [, day, month, yy, hour, minute, second] = match as unknown as string[];
    // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
    const currentYear = new Date().getUTCFullYear();
    let year = Math.floor(currentYear / 100) * 100 + +yy!;
    if (year > currentYear + 50) year -= 100;
    return build(year, month!, +day!, +hour!, +minute!, +second!);
  }
  match = ASCTIME.exec(text);
  if (match !== null) {
    const [, month, day, hour, minute, second, year] = match as unknown as string[];
    return build(+year!, month!, +day!.trim(), +hour!, +minute!, +second!);
  }
  return undefined;
}

/**
 * Formats a date as IMF-fixdate in GMT (`Sun, 06 Nov 1994 08:49:37 GMT`), dropping the
 * milliseconds. Throws a RangeError for an invalid date or one outside the years 0-9999, which
 * the format's four-digit year cannot carry (RFC 9110 §5.6.7).
 *
 * @example
 * formatHttpDate(new Date(Date.UTC(1994, 10, 6, 8, 49, 37))); // 'Sun, 06 Nov 1994 08:49:37 GMT'
 */
export function formatHttpDate(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) {
    throw new RangeError(`${String(date)} cannot be written as an HTTP date`);
  }
  // toUTCString is IMF-fixdate for these years (the ECMAScript spec fixes its format).
  return date.toUTCString();
}

/**
 * A `Last-Modified` value: `date`, or now when `date` is in the future (a clock set wrong, a
 * file touched with a future time), which RFC 9110 §8.8.2.1 forbids sending.
 *
 * @example
 * formatLastModified(new Date(Date.now() + 60_000)); // now, not a minute from now
 */
export function formatLastModified(date: Date): string {
  return formatHttpDate(notLaterThanNow(date));
}

/**
 * `date`, or now when `date` is in the future: the Last-Modified that is sent for it (RFC 9110
 * §8.8.2.1), and so the one a client compares against.
 */
export function notLaterThanNow(date: Date): Date {
  const now = Date.now();
  return date.getTime() > now ? new Date(now) : date;
}

/** Whole seconds since the epoch: HTTP dates carry no finer precision (RFC 9110 §13.1.3). */
export function toHttpSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
