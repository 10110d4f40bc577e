/**
 * The API reference page: a small HTML page of ours that loads Swagger UI's script and styles
 * and points it at the document. Every URL in it is relative, so the page works under any mount
 * prefix and behind a proxy that adds one.
 */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function segments(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/**
 * The URL of `target` relative to the page at `page` (both templates of the same router), asked
 * for at `requestedPath`. The browser resolves it against the path as requested, where every
 * `/` counts (each `../` removes one segment, an empty one too: RFC 3986 §5.2.4): `//docs//`
 * routes like `/docs` (docs/application.md) but lies three segments deeper. So the climb is
 * counted in the requested path's segments, up to the first of the page's segments that
 * `target` does not share; above it, the requested path is a prefix both share.
 */
export function relativeUrl(requestedPath: string, page: string, target: string): string {
  const from = segments(page);
  const trailingSlash = requestedPath.endsWith('/');
  if (!trailingSlash) from.pop();
  const to = segments(target);
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  // The requested directory's segments, empty ones included: what each `../` removes.
  const directory = requestedPath.split('/').slice(1, -1);
  let up = 0;
  let left = from.length - common;
  for (let index = directory.length - 1; left > 0 && index >= 0; index--) {
    up++;
    if (directory[index] !== '') left--;
  }
  return `${up === 0 ? './' : '../'.repeat(up)}${to.slice(common).join('/')}`;
}

/** The script that starts Swagger UI on the page's `#swagger-ui` element. */
export const INIT_SCRIPT = `"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-url"),
    domNode: root,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    validatorUrl: null,
  });
})();
`;

/** What the page links to, each URL relative to the page. */
export interface PageLinks {
  title: string;
  document: string;
  style: string;
  script: string;
  init: string;
  icon: string;
}

export function referencePage(links: PageLinks): string {
  const [title, document, style, script, init, icon] = [
    links.title,
    links.document,
    links.style,
    links.script,
    links.init,
    links.icon,
  ].map(escapeHtml);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" type="image/png" href="${icon}">
<link rel="stylesheet" href="${style}">
</head>
<body>
<div id="swagger-ui" data-url="${document}"></div>
<script src="${script}"></script>
<script src="${init}"></script>
</body>
</html>
`;
}
