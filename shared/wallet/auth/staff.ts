import { codec, int, nullable, opt, orElse, str, strList, type Reader } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { ConditionsFailed, getItem, isConditionalCheckFailed, queryAll, transact, updateItem } from '../../aws/store';
import type { StoreDeps, WalletDeps } from '../deps';
import { walletKeys } from '../keys';
import { isStaffRole, roleHasTenant, STAFF_ROLES, type StaffRole } from './staff-roles';
import { PARTNER_ADMIN_SCOPES, PLATFORM_SCOPES, TENANT_SCOPES } from './scopes';
import { liveGrant } from '../console/grants';
import { hashPassword, processPasswordWork, type PasswordWork } from './passwords';
import { mintWalletToken } from './tokens';

/**
 * Staff accounts and their sessions. An operator creates accounts (scripts/staff.ts, seeding);
 * staff log in with email and password at POST /v1/auth/staff_sessions and get a 15-minute RS256
 * session token (token_use `staff`). Passwords are stored as scrypt hashes with a per-account salt
 * in a self-describing string, so the parameters can be raised later without a migration.
 *
 * Brute force: every attempt is counted on the account BEFORE its password is verified, by one
 * conditional update that refuses once the window holds five, so at most five verifications happen
 * per 15-minute window whatever the concurrency; the fifth failure holds the account for 15
 * minutes from then (429 rate_limited with Retry-After); a success resets the count
 * unless other attempts were counted after it (a burst). An unknown
 * email takes as long as a wrong password (./passwords.ts), so the answer time does not tell
 * which emails exist.
 */

export const STAFF_SESSION_TTL_SECONDS = 15 * 60;
export const MAX_FAILED_LOGINS = 5;
export const LOCKOUT_SECONDS = 15 * 60;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 1024;

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
}


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
  for await (const item of queryAll(deps, { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': walletKeys.staffPartition } })) {
    accounts.push(accountOf(toRecord(item)));
    if (accounts.length >= 10_000) break;
  }
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
export async function createStaffSession(
  runtime: WalletDeps,
  input: { email: string; password: string; tenant_id?: string },
  work: PasswordWork = processPasswordWork,
): Promise<StaffSession> {
  const email = normalizeEmail(input.email);
  const record = await findByEmail(runtime, email);
  if (!record || !isStaffRole(record.role)) {
    await work.imitate(input.password);
    throw wrongCredentials();
  }
  const nowMs = runtime.clock.now().getTime();
  const attempt = await countAttempt(runtime, record.id, nowMs);
  let verified: boolean;
  try {
    verified = await work.verify(input.password, record.password_hash);
  } catch (error) {
    // Refused for capacity, not by the password: the attempt does not count.
    await updateItem(runtime, walletKeys.staff(record.id), { expression: 'ADD login_attempts :minus', values: { ':minus': -1 } }).catch(() => undefined);
    throw error;
  }
  if (!verified) {
    if (attempt >= MAX_FAILED_LOGINS) await holdAfterLastFailure(runtime, record.id, nowMs);
    throw wrongCredentials();
  }
  await resetAfterSuccess(runtime, record.id, attempt);
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

/**
 * Counts a login attempt on the account before its password is checked; answers its number in the
 * window. The window opens with the first attempt and lasts LOCKOUT_SECONDS; each step is one
 * conditional update, so concurrent attempts cannot count past the maximum.
 * Refuses: rate_limited with Retry-After (the window already holds MAX_FAILED_LOGINS attempts).
 */
async function countAttempt(runtime: WalletDeps, staffId: string, nowMs: number): Promise<number> {
  const key = walletKeys.staff(staffId);
  const now = new Date(nowMs).toISOString();
  // Two rounds: a window that closes between the steps is reopened by whoever comes first.
  for (let round = 0; round < 3; round += 1) {
    try {
      const counted = await updateItem(runtime, key, {
        expression: 'ADD login_attempts :one',
        condition: 'login_window_until > :now AND login_attempts < :max',
        values: { ':one': 1, ':now': now, ':max': MAX_FAILED_LOGINS },
        returnValues: 'UPDATED_NEW',
      });
      return (counted && decodeLoginWindow(counted).login_attempts) ?? 1;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    try {
      await updateItem(runtime, key, {
        expression: 'SET login_attempts = :one, login_window_until = :until',
        condition: 'attribute_exists(pk) AND (attribute_not_exists(login_window_until) OR login_window_until <= :now)',
        values: { ':one': 1, ':now': now, ':until': new Date(nowMs + LOCKOUT_SECONDS * 1000).toISOString() },
      });
      return 1;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const item = await getItem(runtime, key);
    const window = item ? decodeLoginWindow(item) : {};
    const until = window.login_window_until !== undefined ? Date.parse(window.login_window_until) : 0;
    if (until > nowMs && (window.login_attempts ?? 0) >= MAX_FAILED_LOGINS) throw locked(until - nowMs);
  }
  throw locked(1_000);
}

/**
 * A success ends the run of failures (its own attempt included), but only when no attempt was
 * counted after it: a success inside a parallel burst of guesses must not reopen the window for
 * the rest of the burst, or one correct password in a burst would buy five more verifications.
 * The account then stays counted until its window closes.
 */
async function resetAfterSuccess(runtime: WalletDeps, staffId: string, attempt: number): Promise<void> {
  await updateItem(runtime, walletKeys.staff(staffId), {
    expression: 'SET login_attempts = :zero',
    condition: 'login_attempts = :attempt',
    values: { ':zero': 0, ':attempt': attempt },
  }).catch((error: unknown) => {
    if (!isConditionalCheckFailed(error)) throw error;
  });
}

/** The last allowed attempt failed: the account is held for LOCKOUT_SECONDS from now. */
async function holdAfterLastFailure(runtime: WalletDeps, staffId: string, nowMs: number): Promise<void> {
  await updateItem(runtime, walletKeys.staff(staffId), {
    expression: 'SET login_window_until = :until',
    condition: 'login_attempts >= :max',
    values: { ':until': new Date(nowMs + LOCKOUT_SECONDS * 1000).toISOString(), ':max': MAX_FAILED_LOGINS },
  }).catch((error: unknown) => {
    // A success reset the count in between: nothing to hold.
    if (!isConditionalCheckFailed(error)) throw error;
  });
}

async function findByEmail(runtime: WalletDeps, email: string): Promise<StaffRecord | undefined> {
  const pointer = await getItem(runtime, walletKeys.staffEmail(email));
  const staffId = pointer?.staff_id;
  if (typeof staffId !== 'string') return undefined;
  const found = await getItem(runtime, walletKeys.staff(staffId));
  return found ? toRecord(found) : undefined;
}

/** A staff account as stored: `name` came later (an account without one is shown by its email). */
const decodeStaff = codec<Omit<StaffRecord, 'name'> & { name?: string }>('staff', {
  id: str,
  email: str,
  name: opt(str),
  // Any string: checked at login, where an account with a role we do not know never gets a session.
  role: str as Reader<StaffRole>,
  tenant_id: nullable(str),
  scopes: orElse(strList, () => []),
  created_at: str,
  password_hash: orElse(str, () => ''),
});

/** The login counter on a staff account. */
const decodeLoginWindow = codec<{ login_attempts?: number; login_window_until?: string }>('staff', { login_attempts: opt(int), login_window_until: opt(str) });

function toRecord(item: Record<string, unknown>): StaffRecord {
  const { name, ...record } = decodeStaff(item);
  return { ...record, name: name ?? record.email };
}

function accountOf(record: StaffRecord): StaffAccount {
  const { id, email, name, role, tenant_id, scopes, created_at } = record;
  return { id, email, name, role, tenant_id, scopes, created_at };
}
