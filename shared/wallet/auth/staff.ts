import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AppError } from '../../kernel/errors';
import { ConditionsFailed, transact } from '../../aws/store';
import type { StoreDeps, WalletDeps } from '../deps';
import { walletKeys } from '../keys';
import type { PrincipalKind } from '../../http/principal';
import { PARTNER_ADMIN_SCOPES, PLATFORM_SCOPES, TENANT_SCOPES } from './scopes';
import { liveGrant } from '../console/grants';
import { mintWalletToken } from './tokens';

/**
 * Staff accounts and their sessions. An operator creates accounts (scripts/staff.ts, seeding);
 * staff log in with email and password at POST /v1/auth/staff_sessions and get a 15-minute RS256
 * session token (token_use `staff`). Passwords are stored as scrypt hashes with a per-account salt
 * in a self-describing string, so the parameters can be raised later without a migration.
 *
 * Brute force: five consecutive failures lock the account for 15 minutes (429 rate_limited with
 * Retry-After); a success resets the count. An unknown email costs one scrypt too, so the answer
 * time does not tell which emails exist.
 */

export type StaffRole = 'platform' | 'vendor_support' | 'partner_admin' | 'tenant_staff';
export const STAFF_ROLES: readonly StaffRole[] = ['platform', 'vendor_support', 'partner_admin', 'tenant_staff'];

export const STAFF_SESSION_TTL_SECONDS = 15 * 60;
export const MAX_FAILED_LOGINS = 5;
export const LOCKOUT_SECONDS = 15 * 60;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 1024;

const ROLE_KINDS: Record<StaffRole, PrincipalKind> = {
  platform: 'platform_staff',
  vendor_support: 'vendor_support',
  partner_admin: 'partner_admin',
  tenant_staff: 'tenant_staff',
};

export const principalKindOf = (role: StaffRole): PrincipalKind => ROLE_KINDS[role];
export const isStaffRole = (value: unknown): value is StaffRole => typeof value === 'string' && (STAFF_ROLES as readonly string[]).includes(value);

/** What each role holds unless the operator says otherwise (docs/decisions.md). */
export function defaultStaffScopes(role: StaffRole): string[] {
  switch (role) {
    case 'platform':
      return [...PLATFORM_SCOPES];
    case 'partner_admin':
      return [...PARTNER_ADMIN_SCOPES, ...TENANT_SCOPES];
    case 'tenant_staff':
      return [...TENANT_SCOPES];
    case 'vendor_support':
      return [];
  }
}

/** The scopes a role may be given at all: no tenant role gets a platform scope, and the reverse. */
function allowedScopes(role: StaffRole): readonly string[] {
  return role === 'platform' ? PLATFORM_SCOPES : [...TENANT_SCOPES, ...PARTNER_ADMIN_SCOPES];
}

/** Tenant staff and partner administrators belong to a tenant; platform and vendor support staff to none (vendor support reaches a tenant through a support access grant). */
export const roleHasTenant = (role: StaffRole): boolean => role === 'tenant_staff' || role === 'partner_admin';

export interface StaffAccount {
  id: string;
  email: string;
  name: string;
  role: StaffRole;
  /** Set for tenant staff and partner administrators, null for platform and vendor support staff. */
  tenant_id: string | null;
  scopes: string[];
  created_at: string;
}

interface StaffRecord extends StaffAccount {
  password_hash: string;
  failed_attempts: number;
  locked_until: string | null;
}


// ---------------------------------------------------------------------------------------------
// Passwords

/** N = 2^15, r = 8: about 90 ms and 32 MiB on the development machine (OWASP's scrypt floor is 2^17 with r = 8, p = 1 at a higher memory cost; raise N when Lambda memory allows). */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** Refuse stored parameters that would make one login cost more than this much memory. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;

const scrypt = (password: string, salt: Buffer, keyLength: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password.normalize('NFKC'), salt, keyLength, { ...options, maxmem: MAX_SCRYPT_MEMORY }, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** `scrypt$N=32768,r=8,p=1$<salt base64>$<hash base64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, SCRYPT_PARAMS);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (N > 2 ** 20 || r > 32 || p > 16 || 128 * N * r > MAX_SCRYPT_MEMORY) return false;
  const expected = Buffer.from(match[5]!, 'base64');
  if (expected.length < 16) return false;
  const actual = await scrypt(password, Buffer.from(match[4]!, 'base64'), expected.length, { N, r, p });
  return timingSafeEqual(actual, expected);
}

/** Verified when the email is unknown: same parameters, so the same cost, and it never matches. */
const DUMMY_HASH = `scrypt$N=${SCRYPT_PARAMS.N},r=${SCRYPT_PARAMS.r},p=${SCRYPT_PARAMS.p}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;

// ---------------------------------------------------------------------------------------------
// Accounts

export interface NewStaff {
  email: string;
  password: string;
  role: StaffRole;
  /** Required for tenant_staff and partner_admin (an existing tenant), refused for the others. */
  tenantId?: string;
  name?: string;
  /** Default: defaultStaffScopes(role). */
  scopes?: readonly string[];
}

const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{1,63}$/;
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/**
 * Creates a staff account (the operator's command and seeding; never an API).
 * Refuses: invalid_request (email, password length, role, tenant or scopes not acceptable),
 * conflict (the email is taken), tenant_not_found.
 */
export async function createStaff(deps: StoreDeps, input: NewStaff): Promise<StaffAccount> {
  const invalid = (field: string, message: string) => new AppError('invalid_request', `${field}: ${message}`, { errors: [{ field, message }] });
  const email = normalizeEmail(input.email);
  if (!EMAIL_PATTERN.test(email)) throw invalid('email', 'not an email address');
  if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH) {
    throw invalid('password', `must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
  if (!isStaffRole(input.role)) throw invalid('role', `must be one of ${STAFF_ROLES.join(', ')}`);
  if (roleHasTenant(input.role) && !input.tenantId) throw invalid('tenant_id', `required for ${input.role}`);
  if (!roleHasTenant(input.role) && input.tenantId) throw invalid('tenant_id', `${input.role} staff belong to no tenant`);
  const scopes = [...new Set(input.scopes ?? defaultStaffScopes(input.role))];
  const allowed = allowedScopes(input.role);
  const foreign = scopes.filter((scope) => !allowed.includes(scope));
  if (foreign.length > 0) throw invalid('scopes', `a ${input.role} cannot hold ${foreign.join(', ')}`);

  const record: StaffRecord = {
    id: deps.ids(),
    email,
    name: input.name?.trim() || email,
    role: input.role,
    tenant_id: input.tenantId ?? null,
    scopes,
    created_at: deps.clock.now().toISOString(),
    password_hash: await hashPassword(input.password),
    failed_attempts: 0,
    locked_until: null,
  };
  try {
    await transact(deps, [
      {
        Put: {
          TableName: deps.table,
          Item: { ...walletKeys.staffEmail(email), entity: 'staff_email', staff_id: record.id },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: deps.table,
          Item: { ...walletKeys.staff(record.id), ...walletKeys.staffIndex(record.id), entity: 'staff', ...record },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...(record.tenant_id
        ? [{ ConditionCheck: { TableName: deps.table, Key: walletKeys.tenant(record.tenant_id), ConditionExpression: 'attribute_exists(pk)' } }]
        : []),
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed) {
      if (error.failures.some((failure) => failure.index === 0)) throw new AppError('conflict', `A staff account with email ${email} exists.`);
      if (error.failures.some((failure) => failure.index === 2)) throw new AppError('tenant_not_found', `No tenant ${record.tenant_id}.`);
    }
    throw error;
  }
  return accountOf(record);
}

/** Every staff account, oldest first (the operator's list; staff are few). */
export async function listStaff(deps: StoreDeps): Promise<StaffAccount[]> {
  const accounts: StaffAccount[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.client.send(
      new QueryCommand({
        TableName: deps.table,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': walletKeys.staffPartition },
        ExclusiveStartKey: startKey,
      }),
    );
    accounts.push(...(page.Items ?? []).map((item) => accountOf(toRecord(item))));
    startKey = page.LastEvaluatedKey;
  } while (startKey && accounts.length < 10_000);
  return accounts;
}

// ---------------------------------------------------------------------------------------------
// Sessions

export interface StaffSession {
  token: string;
  expires_at: string;
}

const wrongCredentials = () => new AppError('unauthenticated', 'The email or password is not correct.');

/**
 * Logs a staff member in.
 * Refuses: unauthenticated (unknown email or wrong password, the same answer for both),
 * rate_limited with Retry-After while the account is locked.
 */
export async function createStaffSession(runtime: WalletDeps, input: { email: string; password: string; tenant_id?: string }): Promise<StaffSession> {
  const email = normalizeEmail(input.email);
  const record = await findByEmail(runtime, email);
  if (!record || !isStaffRole(record.role)) {
    await verifyPassword(input.password, DUMMY_HASH);
    throw wrongCredentials();
  }
  const nowMs = runtime.clock.now().getTime();
  const lockedUntilMs = record.locked_until ? Date.parse(record.locked_until) : 0;
  if (lockedUntilMs > nowMs) throw locked(lockedUntilMs - nowMs);

  if (!(await verifyPassword(input.password, record.password_hash))) {
    await registerFailure(runtime, record.id, nowMs);
    throw wrongCredentials();
  }
  if (record.failed_attempts > 0 || record.locked_until) {
    await runtime.client.send(
      new UpdateCommand({
        TableName: runtime.table,
        Key: walletKeys.staff(record.id),
        UpdateExpression: 'SET failed_attempts = :zero, locked_until = :null',
        ExpressionAttributeValues: { ':zero': 0, ':null': null },
      }),
    );
  }
  const support = await supportSession(runtime, record, input.tenant_id);
  const { token, expiresAt } = await mintWalletToken(await runtime.signer(), {
    use: 'staff',
    subject: record.id,
    scopes: support?.scopes ?? record.scopes,
    ttlSeconds: support?.ttlSeconds ?? STAFF_SESSION_TTL_SECONDS,
    claims: { role: record.role, tenant_id: support?.tenantId ?? record.tenant_id ?? undefined, grant_id: support?.grantId },
    clock: runtime.clock,
  });
  return { token, expires_at: expiresAt.toISOString() };
}

/** What a vendor support engineer may read in a tenant while a support access grant stands. */
export const SUPPORT_SCOPES = ['users:read', 'balances:read', 'topups:read', 'payments:read', 'merchants:read', 'subscriptions:read', 'rewards:read', 'webhooks:read', 'ledger:read', 'audit:read'] as const;

/**
 * A vendor support engineer's session for one tenant exists only under a live grant, and ends when
 * the grant does. Refuses: forbidden (no live grant), invalid_request (tenant_id from another role).
 */
async function supportSession(runtime: WalletDeps, record: { id: string; role: string }, tenantId: string | undefined) {
  if (tenantId === undefined) return undefined;
  if (record.role !== 'vendor_support') {
    throw new AppError('invalid_request', 'tenant_id selects a tenant for vendor support sessions only.', { errors: [{ field: 'tenant_id', message: 'not for this role' }] });
  }
  const grant = await liveGrant(runtime, record.id, tenantId);
  if (!grant) throw new AppError('forbidden', 'No live support access grant covers this tenant.');
  const remainingSeconds = Math.floor((Date.parse(grant.expires_at) - runtime.clock.now().getTime()) / 1000);
  return { tenantId, grantId: grant.id, scopes: [...SUPPORT_SCOPES], ttlSeconds: Math.max(1, Math.min(STAFF_SESSION_TTL_SECONDS, remainingSeconds)) };
}

const locked = (remainingMs: number) =>
  new AppError('rate_limited', 'Too many failed logins: this account is locked for a while.', {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(remainingMs / 1000))) },
  });

/** Counts a failure atomically; the one that reaches the maximum locks the account and starts a new count. */
async function registerFailure(runtime: WalletDeps, staffId: string, nowMs: number): Promise<void> {
  const counted = await runtime.client.send(
    new UpdateCommand({
      TableName: runtime.table,
      Key: walletKeys.staff(staffId),
      UpdateExpression: 'ADD failed_attempts :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  if (Number(counted.Attributes?.failed_attempts ?? 0) < MAX_FAILED_LOGINS) return;
  try {
    await runtime.client.send(
      new UpdateCommand({
        TableName: runtime.table,
        Key: walletKeys.staff(staffId),
        UpdateExpression: 'SET locked_until = :until, failed_attempts = :zero',
        ConditionExpression: 'failed_attempts >= :max',
        ExpressionAttributeValues: { ':until': new Date(nowMs + LOCKOUT_SECONDS * 1000).toISOString(), ':zero': 0, ':max': MAX_FAILED_LOGINS },
      }),
    );
  } catch (error) {
    // A concurrent failure locked it first.
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
  }
}

async function findByEmail(runtime: WalletDeps, email: string): Promise<StaffRecord | undefined> {
  const pointer = await runtime.client.send(new GetCommand({ TableName: runtime.table, Key: walletKeys.staffEmail(email), ConsistentRead: true }));
  const staffId = pointer.Item?.staff_id;
  if (typeof staffId !== 'string') return undefined;
  const found = await runtime.client.send(new GetCommand({ TableName: runtime.table, Key: walletKeys.staff(staffId), ConsistentRead: true }));
  return found.Item ? toRecord(found.Item) : undefined;
}

function toRecord(item: Record<string, unknown>): StaffRecord {
  return {
    id: String(item.id),
    email: String(item.email),
    name: String(item.name ?? item.email),
    // Checked at login: an account with a role we do not know never gets a session.
    role: item.role as StaffRole,
    tenant_id: typeof item.tenant_id === 'string' ? item.tenant_id : null,
    scopes: Array.isArray(item.scopes) ? (item.scopes as unknown[]).map(String) : [],
    created_at: String(item.created_at),
    password_hash: String(item.password_hash ?? ''),
    failed_attempts: Number(item.failed_attempts ?? 0),
    locked_until: typeof item.locked_until === 'string' ? item.locked_until : null,
  };
}

function accountOf(record: StaffRecord): StaffAccount {
  const { id, email, name, role, tenant_id, scopes, created_at } = record;
  return { id, email, name, role, tenant_id, scopes, created_at };
}
