/**
 * Choosing a precompressed sibling (`site.css.br`, `site.css.gz`) from `Accept-Encoding`
 * (RFC 9110 §12.5.3).
 */
import { parseAcceptEncoding, weightOf } from '../http/accept-encoding.js';
import { memoizeHeaderParser } from '../http/memo.js';

/** A precompressed variant: the content coding and the file-name suffix that holds it. */
export interface Precompressed {
  coding: 'br' | 'gzip';
  suffix: '.br' | '.gz';
}

// The server's order of preference: Brotli is smaller, gzip is everywhere.
const VARIANTS: readonly Precompressed[] = [
  { coding: 'br', suffix: '.br' },
  { coding: 'gzip', suffix: '.gz' },
];
const NONE: readonly Precompressed[] = [];

// Clients send a handful of distinct values; the bound keeps a flood of odd ones cheap.
const variantsCached = memoizeHeaderParser(variantsFor, 64);

/**
 * The precompressed variants the client accepts, best first: highest q-value, ties in the
 * server's order. A coding the header does not name is acceptable only through `*`; `q=0`
 * refuses it (§12.5.3). The plain file (`identity`) beats a variant the client weighs strictly
 * lower, as in compress() (chooseEncoding in src/http/accept-encoding.ts). Never throws.
 *
 * @example
 * acceptedVariants('gzip, br;q=0.5'); // gzip first, then br
 * acceptedVariants('gzip;q=0.5, identity'); // none: the plain file is preferred
 */
export function acceptedVariants(header: string | undefined): readonly Precompressed[] {
  if (header === undefined || header === '') return NONE;
  return variantsCached(header);
}

function variantsFor(header: string): readonly Precompressed[] {
  const accepted = parseAcceptEncoding(header);
  // Only when listed; a tie keeps the variant, as chooseEncoding does.
  const identity = accepted.weights.get('identity') ?? 0;
  return VARIANTS.map((variant, order) => ({
    variant,
    order,
    q: weightOf(accepted, variant.coding),
  }))
    .filter((entry) => entry.q > 0 && entry.q >= identity)
    .sort((a, b) => b.q - a.q || a.order - b.order)
    .map((entry) => entry.variant);
}
