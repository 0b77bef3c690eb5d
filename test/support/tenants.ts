import { expect } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { userTokenFor } from './credentials';
import type { Api } from './http';
import { fundUser } from './money';

/**
 * Tenants and their users made over HTTP, as an operator and a client would. The makers assert
 * that each call succeeded, so a test fails where its setup did; balancesOf answers what came.
 */

/** A new tenant (USD) provisioned by platform staff: POST /v1/tenants. Returns its id. */
export async function createTenant(api: Api, platformStaff: string, name: string): Promise<string> {
  const result = await api('POST', '/v1/tenants', { token: platformStaff, body: { name, currency: 'USD' }, key: uuidv7() });
  expect(result.status, result.text).toBe(201);
  return result.body.id as string;
}

export interface NewUserOptions {
  /** The credential that creates it; the client's default when omitted. */
  token?: string;
  /** Sent when given (the API's default is a consumer). */
  kind?: 'consumer' | 'business';
  /** The external id's prefix (`u` unless given). */
  prefix?: string;
}

/** A new user of the tenant: POST /v1/users with a fresh external id. */
export async function newUser(api: Api, options: NewUserOptions = {}): Promise<{ id: string; externalId: string }> {
  const externalId = `${options.prefix ?? 'u'}-${uuidv7()}`;
  const body = { external_id: externalId, ...(options.kind === undefined ? {} : { kind: options.kind }) };
  const result = await api('POST', '/v1/users', options.token === undefined ? { body } : { token: options.token, body });
  expect(result.status, result.text).toBe(201);
  return { id: result.body.id as string, externalId };
}

/** A test's tenant: the platform it lives on, a client of the public API, and an API key of the tenant. */
export interface TenantOfTest {
  platform: Platform;
  api: Api;
  tenantId: string;
  apiKey: string;
}

/** The user a test pays with: its id, external id, and a user token when scopes were named. */
export type FundedUser<Scoped extends boolean> = { id: string; externalId: string } & (Scoped extends true ? { token: string } : unknown);

/**
 * A maker of new users of the test's tenant (read when called: a test file's tenant is made in its
 * beforeAll), each made with the tenant's API key, funded from the tenant's funding account when
 * given more than 0 (./money.ts), and given a user token of these scopes when any are named.
 */
export function fundedUsers(tenant: () => TenantOfTest, options?: { prefix?: string }): (funds: number) => Promise<FundedUser<false>>;
export function fundedUsers(tenant: () => TenantOfTest, options: { prefix?: string; scopes: readonly string[] }): (funds: number) => Promise<FundedUser<true>>;
export function fundedUsers(tenant: () => TenantOfTest, options: { prefix?: string; scopes?: readonly string[] } = {}) {
  return async (funds: number): Promise<{ id: string; externalId: string; token?: string }> => {
    const { platform, api, tenantId, apiKey } = tenant();
    const user = await newUser(api, { token: apiKey, prefix: options.prefix });
    if (funds > 0) await fundUser(platform, tenantId, user.id, funds);
    if (!options.scopes) return user;
    return { ...user, token: await userTokenFor(platform, apiKey, user.externalId, options.scopes) };
  };
}

/** A user's balances as the API answers them (GET /v1/users/{id}/balances), read with this credential. */
export async function balancesOf(api: Api, userId: string, token: string): Promise<{ available: number; posted: number; pending: number } & Record<string, any>> {
  return (await api('GET', `/v1/users/${userId}/balances`, { token })).body;
}
