/**
 * `multipleOf` that agrees with the numbers as written. Ajv divides in binary floating point and
 * asks for an integer: `19.99 / 0.01` is `1998.9999999999998`, so `price: 19.99` "is not a
 * multiple of 0.01", nor `0.3` of `0.1`. Ajv's `multipleOfPrecision` option only widens that
 * into a tolerance, which accepts values that are not multiples (`1.0000000001` of `1`) and
 * every huge value whose quotient overflows to `Infinity`.
 *
 * Instead both numbers are read as the decimals JavaScript prints them as (`String(19.99)` is
 * `"19.99"`: the shortest decimal that reads back as the same double) and divided exactly, with
 * big integers. A number written with up to 15 significant digits prints as written, so for
 * those the answer is exact: 19.99 is a multiple of 0.01, 19.995 is not, and 1e308 is a multiple
 * of 0.5 but not of 0.123456789 (JSON-Schema-Test-Suite, `multipleOf.json` and
 * `optional/float-overflow.json`).
 */

import { _, type Ajv, type CodeKeywordDefinition, type KeywordErrorDefinition, str } from 'ajv';

/** Errors shaped as Ajv's own (`params.multipleOf` is the divisor), so messages need no change. */
const error: KeywordErrorDefinition = {
  message: ({ schemaCode }) => str`must be multiple of ${schemaCode}`,
  params: ({ schemaCode }) => _`{multipleOf: ${schemaCode}}`,
};

const decimalMultipleOf: CodeKeywordDefinition = {
  keyword: 'multipleOf',
  type: 'number',
  schemaType: 'number',
  error,
  code(context) {
    const { gen, data, schemaCode } = context;
    const check = gen.scopeValue('func', { ref: isDecimalMultiple });
    context.fail(_`!${check}(${data}, ${schemaCode})`);
  },
};

/** Replaces Ajv's `multipleOf` with {@link isDecimalMultiple}. */
export function useDecimalMultipleOf(validator: Ajv): void {
  validator.removeKeyword('multipleOf');
  validator.addKeyword(decimalMultipleOf);
}

/** True when `value` divided by `divisor` is an integer, both read as the decimals they print as. */
export function isDecimalMultiple(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor <= 0) return false;
  if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return value % divisor === 0;
  const dividend = decimalOf(value);
  const step = decimalOf(divisor);
  // Scale both to the smaller exponent: then they are integers and `%` is exact.
  const exponent = Math.min(dividend.exponent, step.exponent);
  const scaledDividend = dividend.digits * 10n ** BigInt(dividend.exponent - exponent);
  const scaledStep = step.digits * 10n ** BigInt(step.exponent - exponent);
  return scaledDividend % scaledStep === 0n;
}

/** `|number|` as `digits × 10^exponent`, from its shortest decimal form (`1.5e-7`: 15 and -8). */
function decimalOf(number: number): { digits: bigint; exponent: number } {
  const [mantissa = '0', power = '0'] = String(Math.abs(number)).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  return { digits: BigInt(whole + fraction), exponent: Number(power) - fraction.length };
}
