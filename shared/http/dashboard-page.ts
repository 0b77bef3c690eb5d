import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The dashboard (`GET /dashboard` on the console API): a small HTML page that loads the
 * single-page app (`GET /dashboard/app.js`, built by esbuild from dashboard/app/ with Preact and
 * Chart.js: dashboard/build.ts). The app signs in with a staff session and then calls only the
 * API's own routes with that session's token: the wallet and auth APIs at WALLET_PUBLIC_URL
 * (across origins: ./cors.ts) and the console API here. Nothing is loaded from anywhere else; the
 * page's Content-Security-Policy says so.
 */

export const DASHBOARD_SCRIPT_FILE = 'app.js';

/**
 * The page is served at …/dashboard and …/dashboard/ alike (and behind a stage prefix in AWS): the
 * loader resolves the app against the API's root, as the docs page does. Its hash is in the CSP,
 * so no other inline script runs.
 */
const LOADER = `var root=location.pathname.replace(/[/]dashboard[/]*$/,'/');var s=document.createElement('script');s.type='module';s.src=root+'dashboard/${DASHBOARD_SCRIPT_FILE}';document.head.appendChild(s);`;

const STYLE = `
:root{--fg:#1a1f36;--muted:#5c6478;--line:#dde1ea;--bg:#f6f8fb;--accent:#3b4cca;--bad:#b42318;--good:#067647;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}a{color:var(--accent)}
.shell{display:grid;grid-template-columns:220px 1fr;min-height:100vh}
nav.side{background:#fff;border-right:1px solid var(--line);padding:12px}
nav.side h2{font-size:12px;text-transform:uppercase;color:var(--muted);margin:16px 8px 4px}
nav.side a{display:block;padding:6px 8px;border-radius:6px;text-decoration:none;color:var(--fg)}
nav.side a[aria-current=page]{background:#e8ebfb;color:var(--accent);font-weight:600}
main{padding:16px 24px;min-width:0}
header.top{display:flex;gap:12px;align-items:center;justify-content:space-between;flex-wrap:wrap}
h1{font-size:22px;margin:8px 0 12px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line);font-size:14px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:#fafbfd;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto}
.problem{border:1px solid var(--bad);background:#fef3f2;color:var(--bad);padding:10px 12px;border-radius:6px;margin:8px 0}
.empty{padding:16px;color:var(--muted);background:#fff;border:1px dashed var(--line);border-radius:6px}
form.filters{display:flex;gap:8px;flex-wrap:wrap;align-items:end;margin-bottom:12px}
label{display:flex;flex-direction:column;font-size:12px;color:var(--muted);gap:2px}
input,select,button{font:inherit;padding:6px 8px;border:1px solid var(--line);border-radius:6px;background:#fff;color:var(--fg)}
button{cursor:pointer;background:var(--accent);color:#fff;border-color:var(--accent)}
button.secondary{background:#fff;color:var(--accent)}
button+button{margin-left:8px}
:focus-visible{outline:3px solid #f79009;outline-offset:2px}
.pager{display:flex;gap:8px;margin:12px 0}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:12px;margin-bottom:12px}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px}
.card dt{font-size:12px;color:var(--muted)}.card dd{margin:0}.card b{display:block;font-size:18px;overflow-wrap:anywhere}
.chart{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px;margin:0 0 12px}
.chart canvas{max-height:280px}
ul.legs{margin:0;padding-left:16px}
pre{white-space:pre-wrap;word-break:break-all;background:#fff;border:1px solid var(--line);padding:8px;border-radius:6px;font-size:12px;max-height:320px;overflow:auto}
.signin{max-width:360px;margin:10vh auto;background:#fff;border:1px solid var(--line);border-radius:8px;padding:24px;display:flex;flex-direction:column;gap:12px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:2}
.menu-toggle{display:none}
.ok{color:var(--good)}.bad{color:var(--bad)}
@media (max-width:700px){.shell{grid-template-columns:1fr;grid-template-rows:auto 1fr}nav.side{border-right:0;border-bottom:1px solid var(--line)}nav.side[data-open=false] .links{display:none}.menu-toggle{display:inline-block}main{padding:12px}}
`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The page's policy: scripts and styles from here only (the loader and the style by hash), fetches here and to the public API. */
export function dashboardCsp(publicApiUrl: string | undefined): string {
  const connect = ["'self'", ...(publicApiUrl ? [new URL(publicApiUrl).origin] : [])].join(' ');
  return [
    "default-src 'none'",
    `script-src 'self' ${sha256(LOADER)}`,
    `style-src 'self' ${sha256(STYLE)}`,
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const escapeAttribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function dashboardPageHtml(publicApiUrl: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="wallet-api" content="${escapeAttribute(publicApiUrl ?? '')}">
<title>Dashboard</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<div id="app"><p>Loading the dashboard…</p></div>
<noscript>The dashboard is a JavaScript application; the APIs it reads are described at <a href="docs">docs</a>.</noscript>
<script>${LOADER}</script>
</body>
</html>
`;
}

let script: string | undefined;

/**
 * The app's text, read once: in AWS from the file the bundle ships beside the function's index.mjs
 * (HANDLER_FILES in scripts/bundle.ts), on the embedded platform from the file it built at start
 * (DASHBOARD_SCRIPT_FILE, local/platform.ts).
 */
export function dashboardScript(moduleUrl: string): string {
  if (script === undefined) {
    const beside = join(dirname(fileURLToPath(moduleUrl)), DASHBOARD_SCRIPT_FILE);
    const file = existsSync(beside) ? beside : process.env.DASHBOARD_SCRIPT_FILE;
    if (!file) throw new Error(`${DASHBOARD_SCRIPT_FILE} is neither beside the function nor named by DASHBOARD_SCRIPT_FILE`);
    script = readFileSync(file, 'utf8');
  }
  return script;
}
