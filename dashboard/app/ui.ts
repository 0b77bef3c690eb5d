import { h, type ComponentChildren, type VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { Chart, BarController, BarElement, CategoryScale, Legend, LinearScale, Tooltip } from 'chart.js';
import { Problem, type Row } from './api';

/** Templates as Preact elements (htm: tagged templates, no JSX step); each template here has one root. */
export const html = htm.bind(h) as (strings: TemplateStringsArray, ...values: unknown[]) => VNode;

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** The page's address: `#/<segments>?<filters>`, so every view can be shared as a link. */
export interface Route {
  segments: string[];
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = hash.split('?');
  return { segments: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

export const href = (path: string, query?: Record<string, string | undefined> | URLSearchParams): string => {
  const search = new URLSearchParams();
  for (const [name, value] of query instanceof URLSearchParams ? query.entries() : Object.entries(query ?? {})) if (value) search.set(name, value);
  return `#/${path}${search.size > 0 ? `?${search}` : ''}`;
};

export const text = (value: unknown): string => (value === null || value === undefined ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** Digits after the point of an ISO 4217 currency; points and other commodities have none. */
function exponentOf(currency: string): number | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return null;
  }
}

/** An amount in minor units, shown in major units with its currency (the API's integer stays exact in the title). */
export function money(amount: unknown, currency: unknown): string {
  if (typeof amount !== 'number') return text(amount);
  const code = typeof currency === 'string' ? currency : '';
  const exponent = /^[A-Z]{3}$/.test(code) ? exponentOf(code) : null;
  if (exponent === null) return `${amount.toLocaleString('en')} ${code}`.trim();
  const sign = amount < 0 ? '-' : '';
  const digits = String(Math.abs(amount)).padStart(exponent + 1, '0');
  const major = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return `${sign}${Number(major.split('.')[0]).toLocaleString('en')}${exponent === 0 ? '' : `.${major.split('.')[1]}`} ${code}`;
}

export const when = (value: unknown): string => (typeof value === 'string' ? value.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : text(value));

export function ProblemBox({ problem }: { problem: unknown }): VNode {
  const refused = problem instanceof Problem ? problem : new Problem(0, 'client_error', (problem as Error)?.message ?? String(problem));
  return html`<div class="problem" role="alert" data-problem-code=${refused.code}>
    <strong>The API refused: <code class="problem-code">${refused.code}</code></strong>${refused.status ? ` (HTTP ${refused.status})` : ''}
    <div>${refused.detail}</div>
  </div>` as VNode;
}

export const Empty = ({ children }: { children: ComponentChildren }): VNode => html`<p class="empty" role="status">${children}</p>` as VNode;

/** Loads with `load` whenever `key` changes; the state a page renders (never another key's data). */
export function useLoad<T>(load: () => Promise<T>, key: string): { data?: T; error?: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ key?: string; data?: T; error?: unknown }>({});
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setState({});
    load().then(
      (data) => live && setState({ key, data }),
      (error: unknown) => live && setState({ key, error }),
    );
    return () => {
      live = false;
    };
  }, [key, round]);
  const reload = () => setRound((n) => n + 1);
  return state.key === key ? { data: state.data, error: state.error, loading: false, reload } : { loading: true, reload };
}

export interface Column {
  label: string;
  cell: (row: Row) => ComponentChildren;
  num?: boolean;
}

export function Table({ caption, columns, rows, testid }: { caption: string; columns: Column[]; rows: Row[]; testid?: string }): VNode {
  return html`<div class="scroll" role="region" aria-label=${caption} tabindex="0">
    <table data-testid=${testid}>
      <caption class="skip">${caption}</caption>
      <thead><tr>${columns.map((column) => html`<th scope="col" class=${column.num ? 'num' : ''}>${column.label}</th>`)}</tr></thead>
      <tbody>${rows.map((row) => html`<tr>${columns.map((column) => html`<td class=${column.num ? 'num' : ''}>${column.cell(row)}</td>`)}</tr>`)}</tbody>
    </table>
  </div>` as VNode;
}

/** Links to the first page and the next one; the cursor lives in the address, so a page can be shared. */
export function Pager({ route, next }: { route: Route; next: unknown }): VNode {
  const path = route.segments.join('/');
  const at = new URLSearchParams(route.query);
  at.delete('cursor');
  const nextQuery = new URLSearchParams(at);
  if (typeof next === 'string') nextQuery.set('cursor', next);
  return html`<nav class="pager" aria-label="Pages">
    ${route.query.has('cursor') ? html`<a href=${href(path, at)}>First page</a>` : null}
    ${typeof next === 'string' ? html`<a href=${href(path, nextQuery)} rel="next">Next page</a>` : html`<span>Last page</span>`}
  </nav>` as VNode;
}

export interface Filter {
  name: string;
  label: string;
  type?: 'text' | 'datetime-local' | 'select';
  options?: string[];
}

/** Filters as a form whose submission rewrites the address (the first page of the filtered view). */
export function Filters({ route, filters }: { route: Route; filters: Filter[] }): VNode | null {
  if (filters.length === 0) return null;
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const query: Record<string, string> = {};
    for (const filter of filters) {
      const value = String(form.get(filter.name) ?? '').trim();
      if (value) query[filter.name] = filter.type === 'datetime-local' ? new Date(value).toISOString() : value;
    }
    location.hash = href(route.segments.join('/'), query);
  };
  const valueOf = (filter: Filter) => {
    const value = route.query.get(filter.name) ?? '';
    return filter.type === 'datetime-local' && value ? value.slice(0, 16) : value;
  };
  return html`<form class="filters" onSubmit=${submit} aria-label="Filters">
    ${filters.map((filter) =>
      filter.type === 'select'
        ? html`<label>${filter.label}<select name=${filter.name} value=${valueOf(filter)}><option value="">any</option>${filter.options?.map((option) => html`<option value=${option}>${option}</option>`)}</select></label>`
        : html`<label>${filter.label}<input name=${filter.name} type=${filter.type ?? 'text'} value=${valueOf(filter)} /></label>`,
    )}
    <button type="submit">Apply</button>
    <a href=${href(route.segments.join('/'))}>Clear</a>
  </form>` as VNode;
}

export interface Series {
  label: string;
  values: number[];
}

/**
 * A bar chart (Chart.js on a canvas) with the numbers behind it one click away: a table in a
 * disclosure below, which is also what a screen reader reads (the canvas is labelled as an image).
 */
export function BarChart({ title, labels, series, format, stacked }: { title: string; labels: string[]; series: Series[]; format?: (value: number) => string; stacked?: boolean }): VNode {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const palette = ['#3b4cca', '#f79009', '#067647', '#b42318', '#7a5af8', '#0086c9', '#c11574', '#667085'];
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: { labels, datasets: series.map((one, index) => ({ label: one.label, data: one.values, backgroundColor: palette[index % palette.length] })) },
      options: { responsive: true, maintainAspectRatio: false, animation: false, scales: { x: { stacked: stacked ?? false }, y: { stacked: stacked ?? false, beginAtZero: true } } },
    });
    return () => chart.destroy();
  }, [JSON.stringify([labels, series])]);
  const show = format ?? ((value: number) => value.toLocaleString('en'));
  return html`<figure class="chart" aria-label=${title}>
    <figcaption><strong>${title}</strong></figcaption>
    <div style=${{ position: 'relative', height: '260px' }}><canvas ref=${canvas} role="img" aria-label=${`${title}: chart; the numbers are in the table below`}></canvas></div>
    <details>
      <summary>The numbers behind it</summary>
      <${Table} caption=${title} columns=${[{ label: '', cell: (row: Row) => text(row.label) }, ...series.map((one, index) => ({ label: one.label, num: true, cell: (row: Row) => show((row.values as number[])[index] ?? 0) }))]}
        rows=${labels.map((label, index) => ({ label, values: series.map((one) => one.values[index] ?? 0) }))} />
    </details>
  </figure>` as VNode;
}
