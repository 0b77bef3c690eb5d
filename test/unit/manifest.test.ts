import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from '../../shared/kernel/zod';
import { gatewayOf } from '../../shared/http/gateways';
import { routes } from '../../shared/routes';
import { workers, queues } from '../../shared/workers';

const FUNCTIONS = join(import.meta.dirname, '..', '..', 'functions');
/** Entry points that serve no manifest route by design. */
const INFRASTRUCTURE_ENTRIES = new Set(['platform/fallback', 'ledger/oidc-issuer']);

function entriesOnDisk(dir = FUNCTIONS): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return entriesOnDisk(path);
    return name.endsWith('.ts') ? [relative(FUNCTIONS, path).replace(/\.ts$/, '')] : [];
  });
}

const paramNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

describe('the route manifest', () => {
  it('names an existing entry point for every route and worker', () => {
    for (const entry of [...routes.map((r) => r.handler), ...workers.map((w) => w.handler)]) {
      expect(existsSync(join(FUNCTIONS, `${entry}.ts`)), `functions/${entry}.ts`).toBe(true);
    }
  });

  it('has a route or a worker for every entry point under functions/', () => {
    const used = new Set([...routes.map((r) => r.handler), ...workers.map((w) => w.handler), ...INFRASTRUCTURE_ENTRIES]);
    const orphans = entriesOnDisk().filter((entry) => !used.has(entry));
    expect(orphans).toEqual([]);
  });

  it('exports a handler from every entry point', async () => {
    for (const entry of new Set([...routes.map((r) => r.handler), ...workers.map((w) => w.handler)])) {
      const module = (await import(join(FUNCTIONS, `${entry}.ts`))) as { handler?: unknown };
      expect(typeof module.handler, entry).toBe('function');
    }
  });

  it('gives every route a unique operationId and a unique method and path on its gateway', () => {
    const ids = routes.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = routes.map((r) => `${gatewayOf(r.api)} ${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('describes every route with schemas that match its path', () => {
    for (const route of routes) {
      expect(route.response.body, route.operationId).toBeInstanceOf(z.core.$ZodType);
      expect(route.summary.length, route.operationId).toBeGreaterThan(0);
      const declared = route.request.params instanceof z.core.$ZodObject ? Object.keys(route.request.params._zod.def.shape).sort() : [];
      expect(declared, `${route.operationId} path parameters`).toEqual(paramNames(route.path));
      if (route.method === 'GET' || route.method === 'DELETE') expect(route.request.body, route.operationId).toBeUndefined();
      if (route.idempotency) {
        expect(route.idempotency.minLength).toBeGreaterThanOrEqual(1);
        expect(route.idempotency.maxLength).toBeLessThanOrEqual(255);
      }
      if (route.access !== 'public') expect(route.access.principals.length, route.operationId).toBeGreaterThan(0);
    }
  });

  it('keeps the ledger API to ledger routes and the probes the spec exempts unauthenticated (the wallet\'s /version takes a credential)', () => {
    for (const route of routes.filter((r) => r.path.startsWith('/v1/ledgers'))) expect(route.api).toBe('ledger');
    const probes = routes.filter((r) => r.path === '/healthz' || r.path === '/version');
    expect(probes.map((r) => `${r.api} ${r.path}`).sort()).toEqual(['ledger /healthz', 'ledger /version', 'wallet /healthz', 'wallet /version']);
    for (const probe of probes) expect(probe.access === 'public', `${probe.api} ${probe.path}`).toBe(!(probe.api === 'wallet' && probe.path === '/version'));
  });

  it('points every queue worker at a defined queue', () => {
    const names = new Set(queues.map((q) => q.name));
    for (const worker of workers) {
      if (worker.trigger.kind === 'queue') expect(names.has(worker.trigger.queue), worker.name).toBe(true);
      for (const target of worker.sendsTo ?? []) expect(names.has(target), `${worker.name} -> ${target}`).toBe(true);
    }
    for (const route of routes) {
      for (const target of route.sendsTo ?? []) expect(names.has(target), `${route.operationId} -> ${target}`).toBe(true);
    }
  });
});
