import { createHash, randomBytes } from 'node:crypto';
import { platformClock } from './clock';

/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits, so ids sort by creation time.
 * Within one millisecond a process keeps ids increasing by bumping the 12-bit sequence, so a
 * cursor over ids never skips a sibling created in the same millisecond by this process.
 */
let lastMs = -1;
let sequence = 0;

/**
 * Random bytes from a pool drawn from the CSPRNG 4 KB at a time (as Node's own randomUUID does):
 * each byte is handed out once, and an id costs no call into OpenSSL of its own.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomFromPool(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const out = Buffer.allocUnsafe(size);
  pool.copy(out, 0, poolOffset, poolOffset + size);
  poolOffset += size;
  return out;
}

export type IdGenerator = () => string;

export const uuidv7: IdGenerator = () => {
  // The platform's clock (the system's in AWS): an id's instant is the clock's, so the embedded
  // platform on a test's moved clock makes ids of the time its records say.
  let ms = platformClock.now().getTime();
  if (ms <= lastMs) {
    sequence += 1;
    if (sequence > 0xfff) {
      // Sequence exhausted inside one millisecond: borrow the next millisecond.
      lastMs += 1;
      sequence = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    sequence = randomFromPool(2).readUInt16BE(0) & 0x7ff; // leave headroom for bumps
  }
  const bytes = randomFromPool(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | ((sequence >> 8) & 0x0f);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return canonical(bytes);
};

/** 16 bytes as a canonical UUID string. */
function canonical(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/**
 * A UUIDv7 that the same (`ms`, `seed`) always gives: `ms` in the time bits, the rest from a hash of
 * the seed. For what a retry must write under the same id as the first try (an operation's events):
 * it still sorts by the instant it names.
 */
export function derivedUuidv7(ms: number, seed: string): string {
  const bytes = createHash('sha256').update(seed).digest().subarray(0, 16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return canonical(bytes);
}

/** A stable spread of ids over `shards` buckets (partitions of a hot key, sweep shards). */
export const shardOf = (id: string, shards: number): number => createHash('sha1').update(id).digest().readUInt16BE(0) % shards;
