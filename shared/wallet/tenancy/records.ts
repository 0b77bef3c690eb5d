import { codec, int, nullable, obj, oneOf, orElse, str, strMap, type Reader } from '../../kernel/codec';
import { COMMISSION_MODES, FEE_PATHS, type CommissionMode, type FeePath, type FeeRule, type Fees } from './fees';
import { USER_KINDS, type UserKind } from './user-fields';

/**
 * The tenancy's two main rows, as stored, and their codecs (../../kernel/codec.ts), apart from
 * their services (./tenants.ts, ./users.ts) so a worker that reads a tenant's name does not load
 * them. Fee rules are integers in minor units.
 */

export type TenantStatus = 'active';

export interface TenantRecord {
  id: string;
  name: string;
  currency: string;
  status: TenantStatus;
  ledger_id: string;
  accounts: { revenue: string; funding: string };
  fees: Fees;
  commission_mode: CommissionMode;
  /** Increases by one on every change; updates are conditioned on it. */
  version: number;
  created_at: string;
  updated_at: string;
}

export interface UserRecord {
  id: string;
  tenant_id: string;
  external_id: string;
  kind: UserKind;
  status: 'active';
  metadata: Record<string, string>;
  /** The user's cash account in the tenant's ledger (internal: balances are read through it). */
  cash_account_id: string;
  created_at: string;
  updated_at: string;
}

/** A fee rule as stored on a tenant, and copied onto each money record it priced. */
export const feeRule = obj<FeeRule>({ bps: int, flat: int, min_fee: int, max_fee: nullable(int) });
const fees = obj<Fees>(Object.fromEntries(FEE_PATHS.map((path) => [path, feeRule])) as Record<FeePath, Reader<FeeRule>>);

export const decodeTenant = codec<TenantRecord>('tenant', {
  id: str,
  name: str,
  currency: str,
  status: oneOf('active'),
  ledger_id: str,
  accounts: obj<TenantRecord['accounts']>({ revenue: str, funding: str }),
  fees,
  commission_mode: oneOf(...COMMISSION_MODES),
  version: int,
  created_at: str,
  updated_at: str,
});

/** A tenant read with the projection `id, name` (a listing's tenant names). */
export const decodeTenantName = codec<Pick<TenantRecord, 'id' | 'name'>>('tenant', { id: str, name: str });

/** A tenant read for where its ledger is (`id, name, ledger_id`). */
export const decodeTenantLedger = codec<Pick<TenantRecord, 'id' | 'name' | 'ledger_id'>>('tenant', { id: str, name: str, ledger_id: str });

export const decodeUser = codec<UserRecord>('user', {
  id: str,
  tenant_id: str,
  external_id: str,
  kind: oneOf(...USER_KINDS),
  status: oneOf('active'),
  metadata: orElse(strMap, () => ({})),
  cash_account_id: str,
  created_at: str,
  updated_at: str,
});
