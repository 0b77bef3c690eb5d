import { expect } from 'vitest';
import { uuidv7 } from '../../shared/kernel/ids';
import { call } from './platform';
import type { Api } from './http';
import { payMerchant } from './payments';
import { fundedUsers, type TenantOfTest } from './tenants';

/**
 * A client of the tenant made over HTTP as a new user would: a merchant, then a client onboarded
 * with the tenant's key (which must hold merchants:write and clients:manage), approved unless asked not to.
 */
export async function clientOf(
  base: string,
  apiKey: string,
  options: { approve?: boolean; alias?: string; category?: string; displayName?: string; description?: string } = {},
): Promise<{ id: string; merchantId: string; alias: string }> {
  const merchant = await call(base, 'POST', '/v1/merchants', { token: apiKey, body: { name: 'Shop' } });
  expect(merchant.status, merchant.text).toBe(201);
  const alias = options.alias ?? `shop-${uuidv7().slice(-12)}`;
  const created = await call(base, 'POST', '/v1/clients', {
    token: apiKey,
    body: {
      merchant_id: merchant.body.id,
      org_alias: alias,
      display_name: options.displayName ?? `Shop ${alias}`,
      category: options.category ?? 'books',
      ...(options.description ? { description: options.description } : {}),
    },
  });
  expect(created.status, created.text).toBe(201);
  if (options.approve !== false) {
    const approved = await call(base, 'POST', `/v1/clients/${created.body.id}/approve`, { token: apiKey });
    expect(approved.status, approved.text).toBe(200);
  }
  return { id: created.body.id, merchantId: merchant.body.id, alias };
}

/**
 * A client of the tenant (./clientOf) whose merchant has `marketing` in its marketing account: paid
 * into its settlement first by a payment of a new funded user, then moved to marketing.
 */
export async function clientWithMarketing(tenant: TenantOfTest, marketing: number): Promise<{ id: string; merchantId: string; alias: string }> {
  const client = await clientOf(tenant.platform.urls.public, tenant.apiKey);
  if (marketing > 0) {
    const buyer = await fundedUsers(() => tenant)(marketing);
    expect((await payMerchant(tenant.api, tenant.apiKey, { userId: buyer.id, merchantId: client.merchantId, amount: marketing })).status).toBe(201);
    const funded = await tenant.api('POST', `/v1/merchants/${client.merchantId}/marketing_funds`, { token: tenant.apiKey, key: uuidv7(), body: { amount: marketing } });
    expect(funded.status, funded.text).toBe(201);
  }
  return client;
}

/** A variant's inventory as its offering answers it (GET /v1/clients/{id}/offerings/{offeringId}). */
export async function inventoryOf(api: Api, token: string, clientId: string, variant: { id: string; offeringId: string }): Promise<any> {
  const offering = await api('GET', `/v1/clients/${clientId}/offerings/${variant.offeringId}`, { token });
  return offering.body.variants.find((v: { id: string }) => v.id === variant.id).inventory;
}

/** A variant of a new offering of the client (published unless asked not to): its id, offering and path. */
export async function newVariant(
  api: Api,
  token: string,
  clientId: string,
  inventory: Record<string, unknown>,
  options: { amount?: number; published?: boolean; title?: string } = {},
): Promise<{ id: string; offeringId: string; path: string }> {
  const offering = await api('POST', `/v1/clients/${clientId}/offerings`, {
    token,
    body: {
      title: options.title ?? 'Tee',
      ...(options.published === false ? {} : { status: 'published' }),
      variants: [{ sku: `V-${uuidv7().slice(-10)}`, amount: options.amount ?? 1_500, inventory }],
    },
  });
  expect(offering.status, offering.text).toBe(201);
  const variant = offering.body.variants[0];
  return { id: variant.id as string, offeringId: offering.body.id as string, path: `/v1/clients/${clientId}/offerings/${offering.body.id}/variants/${variant.id}` };
}

export interface StockMovement {
  kind: string;
  quantity: number;
  on_hand_after: number;
  reserved_after: number;
  order_id: string | null;
}

/** Every stock movement of a variant of the client, every page, newest first as the API lists them (GET /v1/clients/{id}/stock_movements). */
export async function stockMovements(api: Api, token: string, clientId: string, variantId: string): Promise<StockMovement[]> {
  const all: StockMovement[] = [];
  let cursor: string | null = null;
  do {
    const page = await api('GET', `/v1/clients/${clientId}/stock_movements?variant_id=${variantId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token });
    expect(page.status, page.text).toBe(200);
    all.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return all;
}
