import { expect } from 'vitest';
import { uuidv7 } from '../../shared/kernel/ids';
import { call } from './platform';

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
