/**
 * The relative links of a Markdown page, and the anchors its headings get, for checking that the
 * packed README and docs link only to what the package holds.
 */

/** The page without fenced code blocks and inline code, where `[a](b)` is no link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Targets of inline links that name no scheme (`docs/node.md`, `#shutdown`, `a.md#b`). */
export function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] as string;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
  }
  return targets;
}

/**
 * The anchors of a page's headings, made as GitHub and npm make them: lower case, punctuation
 * dropped, each space a hyphen, `-1`, `-2`... after a repeated one.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = (match[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
