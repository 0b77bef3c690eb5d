import { render, type VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { decodeJwt } from 'jose';
import { clearSignOut, lastSignOut, request, session, type Claims } from './api';
import * as pages from './pages';
import { ProblemBox, currentRoute, href, html, type Route } from './ui';

/**
 * The dashboard's shell: sign-in with a staff session (POST /v1/auth/staff_sessions, the API's
 * own lockout), navigation by the session's role, and the page the address names. The claims
 * read here choose which links to show; what a page shows is what the API answers that session.
 */

function claimsOf(token: string): Claims | null {
  try {
    const payload = decodeJwt(token);
    return {
      sub: String(payload.sub),
      role: String(payload.role ?? ''),
      tenant_id: typeof payload.tenant_id === 'string' ? payload.tenant_id : undefined,
      grant_id: typeof payload.grant_id === 'string' ? payload.grant_id : undefined,
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
      exp: Number(payload.exp ?? 0),
    };
  } catch {
    return null;
  }
}

interface NavLink {
  path: string;
  label: string;
}

const PLATFORM: NavLink[] = [
  { path: 'tenants', label: 'Tenants' },
  { path: 'platform/transactions', label: 'Transactions' },
  { path: 'platform/users', label: 'Users' },
  { path: 'platform/access_log', label: 'Access log' },
  { path: 'audit_log', label: 'Audit log' },
];
const TENANT: [string, NavLink[]][] = [
  ['Money', [
    { path: 'overview', label: 'Overview' },
    { path: 'users', label: 'Users and balances' },
    { path: 'transactions', label: 'Transactions' },
    { path: 'payments', label: 'Payments' },
    { path: 'refunds', label: 'Refunds' },
    { path: 'orders', label: 'Orders' },
    { path: 'subscriptions', label: 'Subscriptions' },
    { path: 'payouts', label: 'Payouts' },
    { path: 'reward_rules', label: 'Reward rules' },
  ]],
  ['Developers', [
    { path: 'events', label: 'Events' },
    { path: 'webhooks', label: 'Webhook endpoints' },
  ]],
  ['Records', [
    { path: 'audit_log', label: 'Audit log' },
    { path: 'support', label: 'Support access' },
    { path: 'catalog', label: 'Catalog' },
  ]],
];

const sectionsFor = (claims: Claims): [string, NavLink[]][] => (claims.role === 'platform' ? [['Platform', PLATFORM]] : TENANT);
export const homeOf = (claims: Claims): string => (claims.role === 'platform' ? 'tenants' : 'overview');

function pageFor(route: Route): VNode {
  const [first = '', second, third] = route.segments;
  switch (first) {
    case 'tenants':
      return second ? pages.tenantHealth(route, second) : pages.tenants(route);
    case 'platform':
      if (second === 'transactions') return pages.platformTransactions(route);
      if (second === 'users') return pages.platformUsers(route);
      if (second === 'access_log') return pages.accessLog(route);
      break;
    case 'audit_log':
      return pages.auditLog(route);
    case 'overview':
      return pages.overview(route);
    case 'users':
      return second ? pages.user(route, second) : pages.users(route);
    case 'transactions':
      return second ? pages.transaction(route, second) : pages.transactions(route);
    case 'payments':
      return second ? pages.payment(route, second) : pages.payments(route);
    case 'refunds':
      return pages.refunds(route);
    case 'orders':
      return pages.orders(route);
    case 'subscriptions':
      return pages.subscriptions(route);
    case 'payouts':
      return pages.payouts(route);
    case 'reward_rules':
      return pages.rewardRules(route);
    case 'events':
      return second ? html`<${pages.EventPage} id=${second} />` : pages.events(route);
    case 'webhooks':
      return html`<${pages.WebhookEndpoints} />`;
    case 'support':
      return second ? pages.supportGrantRequests(route, second) : pages.supportGrants(route);
    case 'catalog':
      return second ? pages.catalogClient(route, second) : pages.catalog(route);
  }
  void third;
  return html`<section><h1 id="page-title">Not a page</h1><p>The dashboard has no page at <code>${location.hash}</code>.</p></section>` as VNode;
}

function SignIn() {
  const [state, setState] = useState<{ busy: boolean; error?: unknown }>({ busy: false, error: lastSignOut ?? undefined });
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const tenant = String(form.get('tenant_id') ?? '').trim();
    setState({ busy: true });
    try {
      const body = await request<{ token: string }>('POST', '/v1/auth/staff_sessions', {
        anonymous: true,
        body: { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? ''), ...(tenant ? { tenant_id: tenant } : {}) },
      });
      clearSignOut();
      session.set(body.token);
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  return html`<main id="main">
    <form class="signin" onSubmit=${submit} aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in to the dashboard</h1>
      <p>With your staff account: the session lasts 15 minutes and sees what its role and scopes may read.</p>
      ${state.error ? html`<${ProblemBox} problem=${state.error} />` : null}
      <label>Email<input name="email" type="email" autocomplete="username" required /></label>
      <label>Password<input name="password" type="password" autocomplete="current-password" required /></label>
      <label>Tenant id (support engineers, under a grant)<input name="tenant_id" /></label>
      <button type="submit" disabled=${state.busy}>Sign in</button>
    </form>
  </main>`;
}

function Shell({ claims, route }: { claims: Claims; route: Route }) {
  const [open, setOpen] = useState(false);
  const current = route.segments.join('/');
  useEffect(() => setOpen(false), [current]);
  const isCurrent = (path: string) => current === path || (current.startsWith(`${path}/`) && path !== 'platform');
  return html`<div class="shell">
    <a class="skip" href="#main" onClick=${(event: Event) => { event.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to the page</a>
    <nav class="side" aria-label="Dashboard" data-open=${String(open)}>
      <strong>Wallet dashboard</strong>
      <button type="button" class="menu-toggle secondary" aria-expanded=${String(open)} aria-controls="nav-links" onClick=${() => setOpen(!open)}>Menu</button>
      <div class="links" id="nav-links">
        ${sectionsFor(claims).map(([title, links]) => html`<h2>${title}</h2>${links.map((link) => html`<a href=${href(link.path)} aria-current=${isCurrent(link.path) ? 'page' : undefined}>${link.label}</a>`)}`)}
      </div>
    </nav>
    <main id="main" tabindex="-1">
      <header class="top">
        <span data-testid="who">${claims.role}${claims.tenant_id ? ` · tenant ${claims.tenant_id}` : ''}</span>
        <button type="button" class="secondary" onClick=${() => session.set(null)}>Sign out</button>
      </header>
      <div key=${current}>${pageFor(route)}</div>
    </main>
  </div>`;
}

function App() {
  const [token, setToken] = useState(session.token());
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => session.subscribe(() => setToken(session.token())), []);
  useEffect(() => {
    const onHash = () => setRoute(currentRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const claims = token ? claimsOf(token) : null;
  useEffect(() => {
    if (claims && route.segments.length === 0) location.replace(href(homeOf(claims)));
  }, [token, route]);
  useEffect(() => {
    document.title = `${document.getElementById('page-title')?.textContent ?? 'Sign in'} · Dashboard`;
  });
  if (!claims) return html`<${SignIn} />`;
  return html`<${Shell} claims=${claims} route=${route} />`;
}

const root = document.getElementById('app')!;
// The page's "Loading…" placeholder goes; the app renders into the emptied element.
root.replaceChildren();
render(html`<${App} />`, root);
