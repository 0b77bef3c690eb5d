import { GetCommand, TransactWriteCommand, type DocumentClient, type DocumentCommand } from '../../shared/aws/dynamodb';
import type { TableDefinition } from '../../shared/tables';

/**
 * Write units as AWS on-demand pricing counts them, for the items a call wrote, by the same rules
 * as bench/wallet.ts's CapacityMeter (its `modelled` figures): 2 units per KB for every item of a
 * TransactWriteItems (ConditionCheck included), 1 per KB per index entry written, KEYS_ONLY entries
 * only when an item enters or leaves the index. Item sizes are DynamoDB's (attribute names plus
 * values) of the written image, read back after the call for updates. Tests hold the ledger to its
 * write budget with it (docs/performance.md "Write units").
 */

type Item = Record<string, unknown>;

/** DynamoDB's size of one value, in bytes (its item size rules, closely enough to price by the KB). */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace('.', '').replace(/^0+/, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + sizeOf(v), 0);
  return 3 + Object.entries(value as Item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + 1 + sizeOf(v), 0);
}

export const itemBytes = (item: Item): number => Object.entries(item).reduce((sum, [name, v]) => (v === undefined ? sum : sum + Buffer.byteLength(name) + sizeOf(v)), 0);
const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

export interface WrittenItem {
  kind: 'Put' | 'Update' | 'ConditionCheck' | 'Delete';
  /** The item's partition key and sort key, e.g. `TXN#… TXN`. */
  key: string;
  bytes: number;
  units: number;
}

/** Wraps a client so every TransactWriteItems it sends is priced; `take()` returns and forgets what was written. */
export function meterTransactions(client: DocumentClient, reader: DocumentClient, definition: TableDefinition) {
  let written: WrittenItem[] = [];
  const metered: DocumentClient = {
    send: (async (command: DocumentCommand) => {
      const result = await client.send(command);
      if (command instanceof TransactWriteCommand) {
        for (const entry of command.input.TransactItems ?? []) {
          const [kind, action] = Object.entries(entry).find(([, a]) => a !== undefined) as [WrittenItem['kind'], Item];
          const table = String(action.TableName);
          const key = (action.Item ?? action.Key) as Item;
          const image = (action.Item as Item | undefined) ?? (await reader.send(new GetCommand({ TableName: table, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }))).Item ?? key;
          const bytes = itemBytes(image);
          let units = 2 * kb(bytes);
          if (kind !== 'ConditionCheck') {
            for (const index of definition.indexes) {
              const inIndex = image[index.partitionKey] !== undefined;
              const removed = typeof action.UpdateExpression === 'string' && new RegExp(`REMOVE[^=]*\\b${index.partitionKey}\\b`).test(action.UpdateExpression);
              const entered = kind === 'Put' ? inIndex : inIndex && index.projection === 'ALL';
              if (entered) units += index.projection === 'ALL' ? kb(bytes) : 1;
              if (removed) units += 1;
            }
          }
          written.push({ kind, key: `${String(key.pk)} ${String(key.sk)}`, bytes, units });
        }
      }
      return result;
    }) as DocumentClient['send'],
  };
  return {
    client: metered,
    take(): { units: number; items: WrittenItem[] } {
      const items = written;
      written = [];
      return { units: items.reduce((sum, item) => sum + item.units, 0), items };
    },
  };
}
