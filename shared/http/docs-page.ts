import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The API reference page of each API (`GET /docs`): a small HTML page that loads the renderer
 * (Redoc's standalone bundle) and this API's `/openapi.json`, both from the same API. The page
 * resolves both against its own address (`…/docs` or `…/docs/`, both routed here), so it works
 * behind an API Gateway stage prefix (`/prod/docs`) as on a laptop, with or without a trailing slash.
 */

export const DOCS_RENDERER_FILE = 'redoc.standalone.js';
/** Where the renderer comes from: the installed `redoc` package (2.x: Node 20 accepted, no remote loads). */
export const DOCS_RENDERER_PACKAGE_PATH = 'redoc/bundles/redoc.standalone.js';

/** Options that keep the page self-contained and readable; nothing here makes Redoc load anything remote. */
const REDOC_OPTIONS = { expandResponses: '200,201', hideHostname: false, jsonSampleExpandLevel: 3, pathInMiddlePanel: true, sortTagsAlphabetically: true };

export function docsPageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; font-family: sans-serif; }</style>
</head>
<body>
<div id="redoc"></div>
<noscript>This page renders openapi.json with JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
<script>
  // The page is served at …/docs and …/docs/ alike: resolve both loads against the API's root, so
  // a trailing slash (or a stage prefix such as /prod) still finds them.
  var root = location.pathname.replace(/[/]docs[/]*$/, '/');
  var renderer = document.createElement('script');
  renderer.src = root + 'docs/${DOCS_RENDERER_FILE}';
  renderer.onload = function () {
    Redoc.init(root + 'openapi.json', ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc'), function () {
      document.title = (document.querySelector('h1') || {}).textContent || document.title;
    });
  };
  document.body.appendChild(renderer);
</script>
</body>
</html>
`;
}

/**
 * The one remote load in Redoc 2's bundle: the sidebar footer's logo, from Redocly's CDN. The served
 * script points it at an empty data: URL instead (the image then hides itself), so the page loads
 * nothing from outside its API; the page's Content-Security-Policy refuses any other.
 */
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/**
 * Only this API may be reached: scripts from here (and Redoc's inline search worker, a blob:),
 * styles inline (styled-components), images here or data:, fetches (openapi.json) here.
 */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let renderer: string | undefined;

/**
 * The renderer's text, read once: in AWS from the file the bundle ships beside the function's
 * index.mjs (`function.files`), on the embedded platform from the installed package.
 */
export function docsRendererScript(moduleUrl: string): string {
  if (renderer === undefined) {
    const beside = join(dirname(fileURLToPath(moduleUrl)), DOCS_RENDERER_FILE);
    const file = existsSync(beside) ? beside : createRequire(moduleUrl).resolve(DOCS_RENDERER_PACKAGE_PATH);
    renderer = readFileSync(file, 'utf8').replaceAll(REMOTE_LOGO, 'data:,');
  }
  return renderer;
}
