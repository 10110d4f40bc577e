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
 * The URL of `target` relative to a page at `page` (both templates of the same router); a page
 * asked for with a trailing slash (`/docs/`, which routes like `/docs`) is one level deeper.
 */
export function relativeUrl(page: string, target: string, trailingSlash: boolean): string {
  const from = segments(page);
  if (!trailingSlash) from.pop();
  const to = segments(target);
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  const up = '../'.repeat(from.length - common);
  return `${up === '' ? './' : up}${to.slice(common).join('/')}`;
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
}

export function referencePage(links: PageLinks): string {
  const [title, document, style, script, init] = [
    links.title,
    links.document,
    links.style,
    links.script,
    links.init,
  ].map(escapeHtml);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
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
