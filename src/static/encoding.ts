/**
 * Choosing a precompressed sibling (`site.css.br`, `site.css.gz`) from `Accept-Encoding`
 * (RFC 9110 §12.5.3).
 */
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
const parseCached = memoizeHeaderParser(parse, 64);

/**
 * The precompressed variants the client accepts, best first: highest q-value, ties in the
 * server's order. A coding the header does not name is acceptable only through `*`; `q=0`
 * refuses it (§12.5.3). Never throws.
 *
 * @example
 * acceptedVariants('gzip, br;q=0.5'); // gzip first, then br
 */
export function acceptedVariants(header: string | undefined): readonly Precompressed[] {
  if (header === undefined || header === '') return NONE;
  return parseCached(header);
}

function parse(header: string): readonly Precompressed[] {
  const quality = new Map<string, number>();
  for (const member of header.split(',')) {
    const [name, ...params] = member.split(';');
    const coding = (name as string).trim().toLowerCase();
    if (coding === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() === 'q') {
        q = Number(value?.trim());
        // A malformed weight makes the member meaningless rather than preferred.
        if (!Number.isFinite(q) || q < 0 || q > 1) q = 0;
      }
    }
    // `x-gzip` is an alias of gzip (§8.4.1.3).
    quality.set(coding === 'x-gzip' ? 'gzip' : coding, q);
  }
  const wildcard = quality.get('*') ?? 0;
  return VARIANTS.map((variant, order) => ({
    variant,
    order,
    q: quality.get(variant.coding) ?? wildcard,
  }))
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order)
    .map((entry) => entry.variant);
}
