import type { VNode } from 'preact';
import { useState } from 'preact/hooks';
import { newKey, request, type Row } from './api';
import { BarChart, Empty, Filters, Pager, ProblemBox, Table, href, html, money, text, useLoad, when, type Column, type Filter, type Route } from './ui';

/**
 * Every page of the dashboard. Each reads only through an API route (named on the page), with the
 * session's token, so it shows exactly what the session may read; a refusal is shown with its code.
 */

type Page = { data?: Row[]; next_cursor?: string | null } | Row[];
const rowsOf = (body: Page | undefined): Row[] => (Array.isArray(body) ? body : (body?.data ?? []));
const nextOf = (body: Page | undefined): unknown => (Array.isArray(body) ? null : body?.next_cursor);

const link = (path: string, label: unknown) => html`<a href=${href(path)}>${text(label)}</a>`;
/** A row's ledger transaction, linked to its page (GET /v1/transactions/{id}). */
const txnLink = (row: Row) => (typeof row.ledger_transaction_id === 'string' ? html`<a href=${href(`transactions/${row.ledger_transaction_id}`)} data-ledger-link>${row.ledger_transaction_id.slice(0, 8)}…</a>` : '—');
const amountCol = (label = 'Amount', field = 'amount'): Column => ({ label, num: true, cell: (row) => money(row[field], row.currency) });
const col = (label: string, field: string): Column => ({ label, cell: (row) => text(row[field]) });
const timeCol = (label = 'Created', field = 'created_at'): Column => ({ label, cell: (row) => when(row[field]) });

interface ListSpec {
  title: string;
  /** The route it reads, shown under the title. */
  path: string;
  filters?: Filter[];
  columns: Column[];
  empty: string;
  api?: 'wallet' | 'console';
  /** Something drawn from the page's rows (a chart). */
  above?: (rows: Row[]) => VNode | null;
}

function ListPage({ route, spec }: { route: Route; spec: ListSpec }): VNode {
  // Only what this route takes: its filters and the page (the address may hold another page's, e.g. client_id).
  const accepted = new Set([...(spec.filters ?? []).map((filter) => filter.name), 'cursor', 'limit']);
  const query: Record<string, string> = Object.fromEntries([...route.query.entries()].filter(([name]) => accepted.has(name)));
  const state = useLoad(() => request<Page>('GET', spec.path, { api: spec.api, query }), `${spec.path}?${route.query}`);
  const rows = rowsOf(state.data);
  return html`<section aria-labelledby="page-title">
    <h1 id="page-title">${spec.title}</h1>
    <p class="muted"><code>GET ${spec.path}</code></p>
    <${Filters} route=${route} filters=${spec.filters ?? []} />
    ${state.loading ? html`<p role="status">Loading…</p>` : state.error ? html`<${ProblemBox} problem=${state.error} />` : rows.length === 0 ? html`<${Empty}>${spec.empty}</${Empty}>` : html`
      ${spec.above?.(rows)}
      <${Table} caption=${spec.title} columns=${spec.columns} rows=${rows} testid="rows" />
      <${Pager} route=${route} next=${nextOf(state.data)} />`}
  </section>` as VNode;
}

/** Detail pages: one or more reads shown together; any refusal is shown as the page. */
function Detail({ title, load, keyOf, render }: { title: string; load: () => Promise<Row>; keyOf: string; render: (data: Row, reload: () => void) => VNode }): VNode {
  const state = useLoad(load, keyOf);
  return html`<section aria-labelledby="page-title">
    <h1 id="page-title">${title}</h1>
    ${state.loading ? html`<p role="status">Loading…</p>` : state.error ? html`<${ProblemBox} problem=${state.error} />` : render(state.data as Row, state.reload)}
  </section>` as VNode;
}

const Fields = ({ fields }: { row?: Row; fields: [string, unknown][] }) =>
  html`<dl class="cards">${fields.map(([label, value]) => html`<div class="card"><dt>${label}</dt><dd><b>${value}</b></dd></div>`)}</dl>`;

// ---- platform staff -------------------------------------------------------------------------

const feePlanSummary = (fees: unknown) =>
  html`<details><summary>Fee plan</summary><pre>${JSON.stringify(fees, null, 2)}</pre></details>`;

export const tenants = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Tenants',
    path: '/v1/tenants',
    empty: 'No tenants yet.',
    columns: [
      { label: 'Name', cell: (row: Row) => link(`tenants/${String(row.id)}`, row.name) },
      col('Currency', 'currency'),
      col('Status', 'status'),
      col('Commission', 'commission_mode'),
      { label: 'Fee plan', cell: (row: Row) => feePlanSummary(row.fees) },
      timeCol(),
    ],
  }} />`;

function balanceChart(title: string, rows: Row[]) {
  const labels = rows.map((row) => `${text(row.owner_type)} / ${text(row.purpose)} (${text(row.commodity)})`);
  return html`<${BarChart} title=${title} labels=${labels} series=${[{ label: 'Balance (minor units)', values: rows.map((row) => Number(row.balance)) }]} />`;
}

export const tenantHealth = (route: Route, tenantId: string) =>
  html`<${Detail} title="Tenant health" keyOf=${tenantId} load=${() => request<Row>('GET', `/v1/tenants/${encodeURIComponent(tenantId)}/health`)} render=${(health: Row) => {
    const commodities = (health.commodities as Row[]) ?? [];
    const rows = (health.rows as Row[]) ?? [];
    return html`
      <p><code>GET /v1/tenants/{tenantId}/health</code> — ${text(health.tenant_name)} (${text(health.currency)}), ledger <code>${text(health.ledger_id)}</code></p>
      <p data-testid="balanced" class=${health.balanced ? 'ok' : 'bad'}>${health.balanced ? 'Every commodity nets to zero.' : 'A commodity does not net to zero.'}</p>
      <${Table} caption="Commodities" columns=${[col('Commodity', 'commodity'), { label: 'Total', num: true, cell: (row: Row) => text(row.total) }, { label: 'Nets to zero', cell: (row: Row) => (row.balanced ? 'yes' : 'NO') }]} rows=${commodities} />
      ${balanceChart('Balances by owner and purpose', rows)}
      <${Table} caption="Balances" columns=${[col('Owner', 'owner_type'), col('Purpose', 'purpose'), col('Commodity', 'commodity'), { label: 'Balance', num: true, cell: (row: Row) => money(row.balance, row.commodity) }, { label: 'Pending debits', num: true, cell: (row: Row) => text(row.pending_debits) }, { label: 'Pending credits', num: true, cell: (row: Row) => text(row.pending_credits) }, { label: 'Accounts', num: true, cell: (row: Row) => text(row.accounts) }]} rows=${rows} />
      <p><a href=${href('platform/transactions', { tenant_id: tenantId })}>Its transactions</a> · <a href=${href('platform/users', { tenant_id: tenantId })}>Its users</a> · <a href=${href('platform/access_log', { tenant_id: tenantId })}>Reads across tenants</a> · <a href=${href('audit_log', { tenant_id: tenantId })}>Audit log</a></p>`;
  }} />`;

const legsCell = (row: Row) =>
  html`<ul class="legs">${((row.legs as Row[]) ?? []).map((leg) => html`<li>${text(leg.direction)} ${money(leg.amount, leg.commodity)} ${text(leg.owner_type)}/${text(leg.purpose)}</li>`)}</ul>`;

export const platformTransactions = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Transactions across tenants',
    path: '/v1/platform/transactions',
    filters: [{ name: 'tenant_id', label: 'Tenant id' }, { name: 'type', label: 'Type' }],
    empty: 'No transactions.',
    columns: [col('Id', 'id'), col('Tenant', 'tenant_name'), col('Type', 'type'), col('Status', 'status'), { label: 'Legs', cell: legsCell }, timeCol()],
  }} />`;

export const platformUsers = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Users across tenants',
    path: '/v1/platform/users',
    filters: [{ name: 'tenant_id', label: 'Tenant id' }, { name: 'q', label: 'External id starts with' }],
    empty: 'No users.',
    columns: [col('Id', 'id'), col('External id', 'external_id'), col('Tenant', 'tenant_name'), col('Kind', 'kind'), col('Status', 'status'), timeCol()],
  }} />`;

export const accessLog = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Access log: who read across tenants',
    path: '/v1/platform/access_log',
    filters: [{ name: 'tenant_id', label: 'Tenant id' }, { name: 'actor_id', label: 'Actor id' }, { name: 'grant_id', label: 'Grant id' }, { name: 'since', label: 'Since', type: 'datetime-local' }, { name: 'until', label: 'Until', type: 'datetime-local' }],
    empty: 'Nobody has read across tenants in this window.',
    columns: [timeCol('When'), col('Kind', 'kind'), { label: 'Actor', cell: (row: Row) => text(row.actor) }, col('Tenant', 'tenant_id'), col('Operation', 'operation'), col('Outcome', 'outcome'), { label: 'Filters', cell: (row: Row) => text(row.filters) }, col('Rows', 'count')],
  }} />`;

export const auditLog = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Audit log',
    path: '/v1/audit_log',
    filters: [{ name: 'tenant_id', label: 'Tenant id (platform staff)' }],
    empty: 'Nothing audited yet.',
    columns: [timeCol('When'), { label: 'Actor', cell: (row: Row) => text(row.actor) }, col('Action', 'action'), { label: 'Target', cell: (row: Row) => text(row.target) }, { label: 'Change', cell: (row: Row) => html`<details><summary>before / after</summary><pre>${JSON.stringify({ before: row.before, after: row.after }, null, 2)}</pre></details>` }],
  }} />`;

// ---- a tenant -------------------------------------------------------------------------------

export const overview = (route: Route) => {
  void route;
  return html`<${Detail} title="Overview" keyOf="overview" load=${async () => {
    const [summary, reconciliation] = await Promise.all([request<Row>('GET', '/v1/ledger/summary'), request<Row>('GET', '/v1/ledger/reconciliation').catch((error: unknown) => ({ refused: error }))]);
    return { summary, reconciliation };
  }} render=${(data: Row) => {
    const summary = data.summary as Row;
    const reconciliation = data.reconciliation as Row;
    const rows = (summary.rows as Row[]) ?? [];
    const orphans = (reconciliation.orphans as Row[]) ?? [];
    return html`
      <p><code>GET /v1/ledger/summary</code>, <code>GET /v1/ledger/reconciliation</code></p>
      ${balanceChart('Balances by purpose', rows)}
      <${Table} caption="Balances" columns=${[col('Owner', 'owner_type'), col('Purpose', 'purpose'), col('Commodity', 'commodity'), { label: 'Balance', num: true, cell: (row: Row) => money(row.balance, row.commodity) }, { label: 'Accounts', num: true, cell: (row: Row) => text(row.accounts) }]} rows=${rows} />
      <h2>Fee plan</h2>
      <pre data-testid="fee-plan">${JSON.stringify(summary.fee_plan, null, 2)}</pre>
      <h2>Reconciliation</h2>
      ${reconciliation.refused ? html`<${ProblemBox} problem=${reconciliation.refused} />` : html`
        <p>Checked through ${when(reconciliation.checked_through)}: ${text(reconciliation.transactions_checked)} transactions.</p>
        ${orphans.length === 0 ? html`<${Empty}>No orphans: every operation has its ledger transaction and every transaction its operation.</${Empty}>` : html`<${Table} caption="Orphans" columns=${[col('Kind', 'kind'), col('Type', 'type'), col('Reference', 'reference_id'), { label: 'Ledger transaction', cell: txnLink }, amountCol('Amount'), col('Reason', 'reason'), timeCol('Detected', 'detected_at')]} rows=${orphans} />`}`}`;
  }} />`;
};

export const users = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Users',
    path: '/v1/users',
    filters: [{ name: 'external_id', label: 'External id (exact)' }],
    empty: 'No users yet.',
    columns: [{ label: 'External id', cell: (row: Row) => link(`users/${String(row.id)}`, row.external_id) }, col('Kind', 'kind'), col('Status', 'status'), timeCol()],
  }} />`;

export const user = (route: Route, userId: string) =>
  html`<${Detail} title="User" keyOf=${userId} load=${async () => {
    const id = encodeURIComponent(userId);
    const [one, balances, transactions] = await Promise.all([request<Row>('GET', `/v1/users/${id}`), request<Row>('GET', `/v1/users/${id}/balances`), request<Page>('GET', '/v1/transactions', { query: { user_id: userId, limit: '20' } })]);
    return { one, balances, transactions };
  }} render=${(data: Row) => {
    const one = data.one as Row;
    const balances = data.balances as Row;
    return html`
      <p><code>GET /v1/users/{userId}</code>, <code>…/balances</code>, <code>GET /v1/transactions?user_id=</code></p>
      <${Fields} row=${one} fields=${[['External id', text(one.external_id)], ['Available', money(balances.available, balances.currency)], ['Pending', money(balances.pending, balances.currency)], ['Posted', money(balances.posted, balances.currency)], ['Credit limit', money(balances.credit_limit, balances.currency)]]} />
      <h2>Recent entries</h2>
      <${Table} caption="Entries" columns=${[{ label: 'Transaction', cell: (row: Row) => link(`transactions/${String(row.id)}`, String(row.id).slice(0, 8) + '…') }, col('Type', 'type'), col('Side', 'direction'), amountCol(), timeCol()]} rows=${rowsOf(data.transactions as Page)} />
      <p><a href=${href('payments', { user_id: userId })}>Payments</a> · <a href=${href('orders', { user_id: userId })}>Orders</a> · <a href=${href('subscriptions', { user_id: userId })}>Subscriptions</a></p>`;
  }} />`;

/** Money volume per day and operation, from the transactions on this page. */
function volumeChart(rows: Row[]) {
  const days = [...new Set(rows.map((row) => String(row.created_at).slice(0, 10)))].sort();
  const types = [...new Set(rows.map((row) => String(row.type)))].sort();
  const series = types.map((type) => ({ label: type, values: days.map((day) => rows.filter((row) => row.type === type && String(row.created_at).startsWith(day)).reduce((sum, row) => sum + Number(row.amount), 0)) }));
  return html`<${BarChart} title=${`Money volume per day by operation (the ${rows.length} transactions on this page, minor units)`} labels=${days} series=${series} stacked=${true} />`;
}

export const transactions = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Ledger transactions',
    path: '/v1/transactions',
    filters: [{ name: 'type', label: 'Type' }, { name: 'user_id', label: 'User id' }],
    empty: 'No transactions.',
    above: volumeChart,
    columns: [{ label: 'Id', cell: (row: Row) => link(`transactions/${String(row.id)}`, String(row.id).slice(0, 8) + '…') }, col('Type', 'type'), amountCol(), { label: 'Legs', cell: legsCell }, timeCol()],
  }} />`;

export const transaction = (route: Route, id: string) =>
  html`<${Detail} title="Ledger transaction" keyOf=${id} load=${() => request<Row>('GET', `/v1/transactions/${encodeURIComponent(id)}`)} render=${(txn: Row) => html`
    <p><code>GET /v1/transactions/{transactionId}</code></p>
    <${Fields} row=${txn} fields=${[['Id', html`<span data-testid="transaction-id">${text(txn.id)}</span>`], ['Type', text(txn.type)], ['Moved', money(txn.amount, txn.currency)], ['Effective', when(txn.effective_at)]]} />
    <${Table} caption="Legs" testid="legs" columns=${[col('Owner', 'owner_type'), col('Owner id', 'owner_id'), col('Purpose', 'purpose'), col('Side', 'direction'), { label: 'Amount', num: true, cell: (row: Row) => money(row.amount, row.commodity) }]} rows=${(txn.legs as Row[]) ?? []} />`} />`;

const paymentStatuses = ['authorized', 'captured', 'voided', 'expired', 'partially_refunded', 'refunded'];

export const payments = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Payments',
    path: '/v1/payments',
    filters: [{ name: 'status', label: 'Status', type: 'select', options: paymentStatuses }, { name: 'user_id', label: 'User id' }],
    empty: 'No payments.',
    columns: [{ label: 'Payment', cell: (row: Row) => link(`payments/${String(row.id)}`, String(row.id).slice(0, 8) + '…') }, col('Status', 'status'), amountCol(), amountCol('Captured', 'captured_amount'), amountCol('Refunded', 'refunded_amount'), amountCol('Fee', 'fee'), { label: 'Ledger transaction', cell: txnLink }, timeCol()],
  }} />`;

export const payment = (route: Route, id: string) =>
  html`<${Detail} title="Payment" keyOf=${id} load=${async () => {
    const [one, refunds] = await Promise.all([request<Row>('GET', `/v1/payments/${encodeURIComponent(id)}`), request<Page>('GET', '/v1/refunds', { query: { payment_id: id } })]);
    return { one, refunds };
  }} render=${(data: Row) => {
    const one = data.one as Row;
    return html`
      <p><code>GET /v1/payments/{paymentId}</code>, <code>GET /v1/refunds?payment_id=</code></p>
      <${Fields} row=${one} fields=${[['Status', text(one.status)], ['Amount', money(one.amount, one.currency)], ['Captured', money(one.captured_amount, one.currency)], ['Refunded', money(one.refunded_amount, one.currency)], ['Fee', money(one.fee, one.currency)], ['Ledger transaction', txnLink(one)]]} />
      <p>User <a href=${href(`users/${String(one.user_id)}`)}>${text(one.user_id)}</a>, merchant ${text(one.merchant_id)}, ${text(one.description)}</p>
      <h2>Refunds</h2>
      ${rowsOf(data.refunds as Page).length === 0 ? html`<${Empty}>No refunds.</${Empty}>` : html`<${Table} caption="Refunds" columns=${[col('Id', 'id'), amountCol(), col('Reason', 'reason'), { label: 'Ledger transaction', cell: txnLink }, timeCol()]} rows=${rowsOf(data.refunds as Page)} />`}`;
  }} />`;

export const refunds = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Refunds',
    path: '/v1/refunds',
    filters: [{ name: 'payment_id', label: 'Payment id' }, { name: 'user_id', label: 'User id' }],
    empty: 'No refunds.',
    columns: [col('Id', 'id'), { label: 'Payment', cell: (row: Row) => link(`payments/${String(row.payment_id)}`, String(row.payment_id).slice(0, 8) + '…') }, amountCol(), col('Reason', 'reason'), { label: 'Ledger transaction', cell: txnLink }, timeCol()],
  }} />`;

const linesCell = (row: Row) =>
  html`<ul>${((row.lines as Row[]) ?? []).map((line) => html`<li>${text(line.quantity)} × ${text(line.title)} ${text(line.sku)} @ ${money(line.unit_amount, row.currency)}</li>`)}</ul>`;

export const orders = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Orders',
    path: '/v1/orders',
    filters: [{ name: 'status', label: 'Status' }, { name: 'client_id', label: 'Client id' }, { name: 'user_id', label: 'User id' }],
    empty: 'No orders.',
    columns: [col('Id', 'id'), col('Status', 'status'), { label: 'Lines', cell: linesCell }, amountCol(), amountCol('Commission', 'commission'), { label: 'Payment', cell: (row: Row) => (row.payment_id ? link(`payments/${String(row.payment_id)}`, 'payment and its ledger transaction') : '—') }, timeCol('Holds until', 'expires_at'), timeCol()],
  }} />`;

export const subscriptions = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Subscriptions',
    path: '/v1/subscriptions',
    filters: [{ name: 'status', label: 'Status' }, { name: 'user_id', label: 'User id' }, { name: 'merchant_id', label: 'Merchant id' }],
    empty: 'No subscriptions.',
    columns: [col('Plan', 'plan_name'), col('Status', 'status'), amountCol(), col('Every', 'interval'), { label: 'Charged periods', num: true, cell: (row: Row) => text(row.periods_charged) }, { label: 'Dunning retries', num: true, cell: (row: Row) => text(row.retry_count) }, col('Paused because', 'pause_reason'), timeCol('Next charge', 'next_charge_at'), { label: 'Charges', cell: (row: Row) => html`<a href=${href('payments', { user_id: String(row.user_id) })}>payer's payments</a>` }],
  }} />`;

export const payouts = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Payouts',
    path: '/v1/payouts',
    filters: [{ name: 'merchant_id', label: 'Merchant id' }, { name: 'status', label: 'Status' }],
    empty: 'No payouts.',
    columns: [col('Id', 'id'), col('Merchant', 'merchant_id'), col('Status', 'status'), amountCol(), amountCol('Fee', 'fee'), col('Rail', 'rail'), col('Failure', 'failure_reason'), { label: 'Ledger transaction', cell: txnLink }, timeCol()],
  }} />`;

/** Pages that need a client: a picker from GET /v1/clients, kept in the address as client_id. */
function ClientPicker({ route }: { route: Route }) {
  const state = useLoad(() => request<Page>('GET', '/v1/clients', { query: { limit: '100' } }), 'clients');
  if (state.error) return html`<${ProblemBox} problem=${state.error} />`;
  const clients = rowsOf(state.data);
  const choose = (event: Event) => {
    const query = new URLSearchParams(route.query);
    query.set('client_id', (event.target as HTMLSelectElement).value);
    query.delete('cursor');
    location.hash = href(route.segments.join('/'), query);
  };
  return html`<label>Client <select onChange=${choose} value=${route.query.get('client_id') ?? ''} aria-label="Client"><option value="">choose a client</option>${clients.map((client) => html`<option value=${String(client.id)}>${text(client.display_name)}</option>`)}</select></label>`;
}

export const rewardRules = (route: Route) => {
  const clientId = route.query.get('client_id');
  return html`<div>
    <${ClientPicker} route=${route} />
    ${clientId ? html`<${ListPage} route=${route} spec=${{
      title: 'Reward rules',
      path: `/v1/clients/${encodeURIComponent(clientId)}/reward_rules`,
      empty: 'No reward rules for this client.',
      columns: [col('Kind', 'kind'), { label: 'Params', cell: (row: Row) => text(row.params) }, { label: 'Caps', cell: (row: Row) => text(row.caps) }, col('Status', 'status'), col('Version', 'version'), timeCol('Starts', 'starts_at'), timeCol('Ends', 'ends_at'), { label: 'Ledger', cell: () => html`<a href=${href('transactions', { type: 'reward' })}>reward transactions</a>` }],
    }} />` : html`<h1 id="page-title">Reward rules</h1><${Empty}>Choose a client to see its reward rules.</${Empty}>`}
  </div>`;
};

export const events = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Events',
    path: '/v1/webhook_events',
    filters: [{ name: 'type', label: 'Type' }, { name: 'created_after', label: 'After', type: 'datetime-local' }, { name: 'created_before', label: 'Before', type: 'datetime-local' }],
    empty: 'No events in this window.',
    columns: [{ label: 'Event', cell: (row: Row) => link(`events/${String(row.id)}`, row.id) }, col('Type', 'type'), col('Client', 'client_id'), timeCol()],
  }} />`;

/** How many pages an event page reads: of the tenant's events to find the event, of that event's attempts (100 each). */
const DELIVERY_PAGES = 5;

/** Header lines as `name: value`, one per line. */
const headerLines = (headers: unknown): string =>
  headers && typeof headers === 'object' ? Object.entries(headers as Record<string, string>).map(([name, value]) => `${name}: ${value}`).join('\n') : '—';

/** What one attempt sent and got back, as GET /v1/webhook_deliveries answers it. */
function AttemptDetail({ attempt, open }: { attempt: Row; open: boolean }) {
  const request = attempt.request as { headers?: Record<string, string> } | null;
  const response = attempt.response as { headers?: Record<string, string>; body?: string; body_truncated?: boolean } | null;
  const sent = request?.headers ?? {};
  return html`<details data-testid="attempt-detail" open=${open}>
    <summary>Attempt ${text(attempt.attempt)} to ${text(attempt.endpoint_id)}: ${text(attempt.status)} ${attempt.response_code === null ? text(attempt.error) : text(attempt.response_code)} (${attempt.manual ? 'redelivered' : 'automatic'}, ${when(attempt.attempted_at)})</summary>
    <${Fields} row=${attempt} fields=${[
      ['Latency', `${text(attempt.duration_ms)} ms`],
      ['Next attempt', attempt.next_attempt_at ? when(attempt.next_attempt_at) : 'none'],
      ['Signature (X-Wallet-Signature)', html`<code data-testid="signature">${text(sent['x-wallet-signature'])}</code>`],
      ['Signature (webhook-signature)', html`<code>${text(sent['webhook-signature'])}</code>`],
    ]} />
    <h3>Request</h3>
    ${request ? html`<pre data-testid="request-headers" aria-label="Request headers">${headerLines(sent)}</pre><p>Body: the event's payload above, sent as compact JSON with its fields in the order id, type, tenant_id, client_id, created_at, data (the bytes the signature covers).</p>` : html`<${Empty}>Not recorded for this attempt.</${Empty}>`}
    <h3>Answer</h3>
    ${response
      ? html`<p>Status <strong>${text(attempt.response_code)}</strong></p>
          <pre data-testid="response-headers" aria-label="Response headers">${headerLines(response.headers)}</pre>
          <pre data-testid="response-body" aria-label="Response body">${response.body === '' ? '(empty body)' : response.body}</pre>
          ${response.body_truncated ? html`<p role="note">Truncated: the first 2 KiB of the body are kept.</p>` : null}`
      : html`<${Empty}>No answer${attempt.error ? `: ${String(attempt.error)}` : ''}.</${Empty}>`}
  </details>`;
}

export function EventPage({ id }: { id: string }) {
  const [action, setAction] = useState<{ error?: unknown; done?: string }>({});
  return html`<${Detail} title="Event" keyOf=${`${id}:${action.done ?? ''}`} load=${async () => {
    const found = await findEvent(id);
    const attempts: Row[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < DELIVERY_PAGES; page += 1) {
      const body = await request<Page>('GET', '/v1/webhook_deliveries', { query: { event_id: id, limit: '100', cursor } });
      attempts.push(...rowsOf(body));
      const next = nextOf(body);
      if (typeof next !== 'string') break;
      cursor = next;
    }
    return { event: found, attempts };
  }} render=${(data: Row, reload: () => void) => {
    const event = data.event as Row;
    const attempts = data.attempts as Row[];
    const redeliver = async () => {
      try {
        await request('POST', `/v1/webhook_events/${encodeURIComponent(id)}/redeliver`, { idempotencyKey: newKey() });
        setAction({ done: new Date().toISOString() });
      } catch (error) {
        setAction({ error });
      }
    };
    return html`
      <p><code>GET /v1/webhook_events</code>, <code>GET /v1/webhook_deliveries?event_id=</code>, <code>POST /v1/webhook_events/{eventId}/redeliver</code></p>
      <${Fields} row=${event} fields=${[['Type', text(event.type)], ['Created', when(event.created_at)], ['Attempts', html`<span data-testid="attempt-count">${attempts.length}</span>`]]} />
      <button type="button" onClick=${redeliver}>Redeliver to every endpoint</button>
      <button type="button" class="secondary" onClick=${reload}>Reload attempts</button>
      ${action.error ? html`<${ProblemBox} problem=${action.error} />` : action.done ? html`<p role="status">Redelivery queued.</p>` : null}
      <h2>Payload (the body each delivery carries)</h2>
      <pre>${JSON.stringify(event, null, 2)}</pre>
      <h2>Delivery attempts</h2>
      ${attempts.length === 0
        ? html`<${Empty}>No attempt yet (deliveries run a moment after the event; reload to see them).</${Empty}>`
        : html`<${Table} caption="Delivery attempts" testid="attempts" columns=${[col('Endpoint', 'endpoint_id'), { label: 'Attempt', num: true, cell: (row: Row) => text(row.attempt) }, col('Status', 'status'), { label: 'Answer', num: true, cell: (row: Row) => text(row.response_code) }, col('Error', 'error'), { label: 'Latency ms', num: true, cell: (row: Row) => text(row.duration_ms) }, { label: 'Manual', cell: (row: Row) => (row.manual ? 'redelivered' : 'automatic') }, timeCol('Attempted', 'attempted_at'), timeCol('Next attempt', 'next_attempt_at')]} rows=${attempts} />
          <h2>Each attempt: what was sent and what came back</h2>
          ${attempts.map((attempt, index) => html`<${AttemptDetail} key=${String(attempt.id)} attempt=${attempt} open=${index === 0} />`)}`}`;
  }} />`;
}

/** The event among the tenant's events (the API lists them; it has no read of one event). */
async function findEvent(id: string): Promise<Row> {
  let cursor: string | undefined;
  for (let page = 0; page < DELIVERY_PAGES; page += 1) {
    const body = await request<Page>('GET', '/v1/webhook_events', { query: { limit: '100', cursor } });
    const found = rowsOf(body).find((row) => row.id === id);
    if (found) return found;
    const next = nextOf(body);
    if (typeof next !== 'string') break;
    cursor = next;
  }
  throw new Error(`Event ${id} is not among this session's ${DELIVERY_PAGES * 100} most recent events.`);
}

export function WebhookEndpoints() {
  const [action, setAction] = useState<{ error?: unknown; done?: string; secret?: string }>({});
  return html`<${Detail} title="Webhook endpoints" keyOf=${action.done ?? ''} load=${async () => {
    const endpoints = rowsOf(await request<Page>('GET', '/v1/webhook_endpoints'));
    const stats = await Promise.all(endpoints.map((endpoint) => request<Row>('GET', `/v1/webhook_endpoints/${String(endpoint.id)}/stats`).catch((error: unknown) => ({ refused: error }))));
    return { endpoints, stats };
  }} render=${(data: Row) => {
    const endpoints = data.endpoints as Row[];
    const stats = data.stats as Row[];
    const act = async (endpoint: Row, verb: 'rotate_secret' | 'recover') => {
      try {
        const body = await request<Row>('POST', `/v1/webhook_endpoints/${String(endpoint.id)}/${verb}`, { idempotencyKey: newKey(), body: {} });
        setAction({ done: `${verb}:${String(endpoint.id)}:${Date.now()}`, secret: typeof body.secret === 'string' ? body.secret : undefined });
      } catch (error) {
        setAction({ error });
      }
    };
    if (endpoints.length === 0) return html`<p><code>GET /v1/webhook_endpoints</code></p><${Empty}>No webhook endpoints.</${Empty}>`;
    const labels = endpoints.map((endpoint) => String(endpoint.url));
    const rate = stats.map((one) => (Number(one.attempts) > 0 ? Math.round((Number(one.successes) / Number(one.attempts)) * 1000) / 10 : 0));
    return html`
      <p><code>GET /v1/webhook_endpoints</code>, <code>GET /v1/webhook_endpoints/{endpointId}/stats</code></p>
      ${action.error ? html`<${ProblemBox} problem=${action.error} />` : action.secret ? html`<p role="status">New secret (shown once): <code>${action.secret}</code></p>` : null}
      <${BarChart} title="Success rate per endpoint, last 24 h (%)" labels=${labels} series=${[{ label: 'success %', values: rate }]} />
      <${BarChart} title="Delivery latency per endpoint, last 24 h (ms)" labels=${labels} series=${[{ label: 'p50', values: stats.map((one) => Number((one.latency_ms as Row | undefined)?.p50 ?? 0)) }, { label: 'p99', values: stats.map((one) => Number((one.latency_ms as Row | undefined)?.p99 ?? 0)) }]} />
      <${Table} caption="Endpoints" columns=${[col('URL', 'url'), col('Status', 'status'), { label: 'Events', cell: (row: Row) => text(row.event_filters) }, { label: 'Attempts (24 h)', num: true, cell: (row: Row) => text(stats[endpoints.indexOf(row)]?.attempts) }, { label: 'Failures', num: true, cell: (row: Row) => text(stats[endpoints.indexOf(row)]?.failures) }, col('Disabled because', 'disabled_reason'), { label: 'Actions', cell: (row: Row) => html`<button type="button" class="secondary" onClick=${() => act(row, 'rotate_secret')} aria-label=${`Rotate the secret of ${String(row.url)}`}>Rotate secret</button> ${row.status === 'disabled' ? html`<button type="button" onClick=${() => act(row, 'recover')} aria-label=${`Recover ${String(row.url)}`}>Recover</button>` : null}` }]} rows=${endpoints} />`;
  }} />`;
}

export const catalog = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Catalog: clients',
    path: '/v1/clients',
    filters: [{ name: 'status', label: 'Status' }],
    empty: 'No clients.',
    columns: [{ label: 'Client', cell: (row: Row) => link(`catalog/${String(row.id)}`, row.display_name) }, col('Alias', 'org_alias'), col('Category', 'category'), col('Status', 'status'), { label: 'Commission bps', num: true, cell: (row: Row) => text(row.commission_bps) }, { label: 'Reward rules', cell: (row: Row) => html`<a href=${href('reward_rules', { client_id: String(row.id) })}>rules</a>` }],
  }} />`;

export const catalogClient = (route: Route, clientId: string) =>
  html`<${Detail} title="Catalog client" keyOf=${clientId} load=${async () => {
    const id = encodeURIComponent(clientId);
    const [client, offerings, movements] = await Promise.all([request<Row>('GET', `/v1/clients/${id}`), request<Page>('GET', `/v1/clients/${id}/offerings`, { query: { limit: '100' } }), request<Page>('GET', `/v1/clients/${id}/stock_movements`, { query: { limit: '50' } })]);
    return { client, offerings, movements };
  }} render=${(data: Row) => {
    const client = data.client as Row;
    const offerings = rowsOf(data.offerings as Page);
    const variants = offerings.flatMap((offering) => ((offering.variants as Row[]) ?? []).map((variant): Row => ({ ...variant, offering: offering.title })));
    const inventory = (variant: Row, field: string) => Number((variant.inventory as Row | null)?.[field] ?? 0);
    return html`
      <p><code>GET /v1/clients/{clientId}</code>, <code>…/offerings</code>, <code>…/stock_movements</code> — ${text(client.display_name)} (${text(client.status)})</p>
      ${variants.length > 0 ? html`<${BarChart} title="Stock on hand against reserved, per variant" labels=${variants.map((variant) => `${text(variant.offering)} ${text(variant.sku)}`)} series=${[{ label: 'on hand', values: variants.map((variant) => inventory(variant, 'on_hand')) }, { label: 'reserved', values: variants.map((variant) => inventory(variant, 'reserved')) }]} />` : null}
      <h2>Offerings and variants</h2>
      ${variants.length === 0 ? html`<${Empty}>No offerings.</${Empty}>` : html`<${Table} caption="Variants" columns=${[col('Offering', 'offering'), col('SKU', 'sku'), { label: 'Options', cell: (row: Row) => text(row.option_values) }, amountCol('Price'), { label: 'On hand', num: true, cell: (row: Row) => text(inventory(row, 'on_hand')) }, { label: 'Reserved', num: true, cell: (row: Row) => text(inventory(row, 'reserved')) }, col('Status', 'status')]} rows=${variants} />`}
      <h2>Stock log</h2>
      ${rowsOf(data.movements as Page).length === 0 ? html`<${Empty}>No stock movements.</${Empty}>` : html`<${Table} caption="Stock log" columns=${[timeCol('When'), { label: 'SKU', cell: (row: Row) => text(variants.find((variant) => variant.id === row.variant_id)?.sku ?? row.variant_id) }, col('Kind', 'kind'), { label: 'Quantity', num: true, cell: (row: Row) => text(row.quantity) }, { label: 'On hand after', num: true, cell: (row: Row) => text(row.on_hand_after) }, { label: 'Reserved after', num: true, cell: (row: Row) => text(row.reserved_after) }, col('Reason', 'reason'), col('Order', 'order_id')]} rows=${rowsOf(data.movements as Page)} />`}`;
  }} />`;

// ---- support access (the console API, this page's own origin) ---------------------------------

export const supportGrants = (route: Route) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'Support access grants',
    path: '/v1/support_access_grants',
    api: 'console',
    empty: 'No support engineer has been granted access to this tenant.',
    columns: [{ label: 'Grant', cell: (row: Row) => link(`support/${String(row.id)}`, String(row.id).slice(0, 8) + '…') }, col('Support engineer', 'staff_id'), col('Reason', 'reason'), col('Ticket', 'ticket_reference'), timeCol('Granted'), timeCol('Expires', 'expires_at'), timeCol('Revoked', 'revoked_at')],
  }} />`;

export const supportGrantRequests = (route: Route, grantId: string) =>
  html`<${ListPage} route=${route} spec=${{
    title: 'What the support engineer read under this grant',
    path: `/v1/support_access_grants/${encodeURIComponent(grantId)}/requests`,
    api: 'console',
    empty: 'Nothing was read under this grant.',
    columns: [timeCol('When'), col('Operation', 'operation'), col('Outcome', 'outcome'), col('Support engineer', 'staff_id')],
  }} />`;
