import { describe, expect, it } from 'vitest';
import { decodeFailure } from '../support/codecs';
import { bool, codec, int, list, mapOf, nullable, num, obj, oneOf, opt, orElse, str, strList, strMap, stored, StoredItemInvalid } from '../../shared/kernel/codec';
import { problemBody } from '../../shared/kernel/errors';

const one = <T>(read: Parameters<typeof codec<{ value: T }>>[1]['value']) => codec<{ value: T }>('thing', { value: read });

describe('field readers', () => {
  it('str reads a string and refuses anything else', () => {
    expect(one(str)({ value: 'a' })).toEqual({ value: 'a' });
    expect(one(str)({ value: '' })).toEqual({ value: '' });
    for (const value of [1, undefined, null, true, ['a'], { a: 1 }]) expect(decodeFailure(() => one(str)({ value }))?.field).toBe('value');
  });

  it('int reads a whole number and refuses a fraction, a numeric string and an unsafe integer', () => {
    expect(one(int)({ value: 1250 })).toEqual({ value: 1250 });
    expect(one(int)({ value: -3 })).toEqual({ value: -3 });
    expect(one(int)({ value: 0 })).toEqual({ value: 0 });
    for (const value of [12.5, '12', Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, undefined, null]) expect(decodeFailure(() => one(int)({ value }))?.field).toBe('value');
  });

  it('num reads a finite number, fractions included', () => {
    expect(one(num)({ value: 0.25 })).toEqual({ value: 0.25 });
    for (const value of [Number.NaN, Number.NEGATIVE_INFINITY, '0.25', undefined]) expect(decodeFailure(() => one(num)({ value }))?.field).toBe('value');
  });

  it('bool reads true and false only', () => {
    expect(one(bool)({ value: false })).toEqual({ value: false });
    for (const value of [0, 'true', undefined, null]) expect(decodeFailure(() => one(bool)({ value }))?.field).toBe('value');
  });

  it('oneOf reads a listed string only', () => {
    const status = one(oneOf('active', 'revoked'));
    expect(status({ value: 'revoked' })).toEqual({ value: 'revoked' });
    expect(decodeFailure(() => status({ value: 'deleted' }))?.message).toContain('one of active, revoked');
  });

  it('opt leaves an absent or null field out of the record, and checks a present one', () => {
    const decode = one(opt(int));
    expect(decode({})).toEqual({});
    expect(Object.keys(decode({ value: null }))).toEqual([]);
    expect(decode({ value: 7 })).toEqual({ value: 7 });
    expect(decodeFailure(() => decode({ value: '7' }))?.field).toBe('value');
  });

  it('nullable reads an absent field as null', () => {
    const decode = one(nullable(str));
    expect(decode({})).toEqual({ value: null });
    expect(decode({ value: null })).toEqual({ value: null });
    expect(decode({ value: 'x' })).toEqual({ value: 'x' });
    expect(decodeFailure(() => decode({ value: 3 }))?.field).toBe('value');
  });

  it('orElse reads an absent field as its fallback, a fresh one each time', () => {
    const decode = one(orElse(strList, () => []));
    const first = decode({}) as { value: string[] };
    first.value.push('mutated');
    expect(decode({})).toEqual({ value: [] });
    expect(decode({ value: ['a'] })).toEqual({ value: ['a'] });
  });

  it('list and strList check every element and name the one that fails', () => {
    expect(one(list(int))({ value: [1, 2] })).toEqual({ value: [1, 2] });
    expect(decodeFailure(() => one(strList)({ value: ['a', 2] }))?.field).toBe('value[1]');
    expect(decodeFailure(() => one(strList)({ value: 'a' }))?.field).toBe('value');
  });

  it('mapOf and strMap check every value and name its key', () => {
    expect(one(strMap)({ value: { a: 'x' } })).toEqual({ value: { a: 'x' } });
    expect(one(mapOf(int))({ value: { a: 1 } })).toEqual({ value: { a: 1 } });
    expect(decodeFailure(() => one(strMap)({ value: { a: 'x', b: 2 } }))?.field).toBe('value.b');
    expect(decodeFailure(() => one(strMap)({ value: ['x'] }))?.field).toBe('value');
  });

  it('obj reads a nested map by its own shape and names the nested field', () => {
    const decode = one(obj<{ revenue: string; shards?: number }>({ revenue: str, shards: opt(int) }));
    expect(decode({ value: { revenue: 'acc_1', extra: 'dropped' } })).toEqual({ value: { revenue: 'acc_1' } });
    expect(decodeFailure(() => decode({ value: { revenue: 1 } }))?.field).toBe('value.revenue');
    expect(decodeFailure(() => decode({ value: 'acc_1' }))?.field).toBe('value');
  });

  it('stored takes a map as it is and refuses what is not a map', () => {
    const decode = one(stored<{ a: number }>());
    const value = { a: 1, b: [2] };
    expect((decode({ value }) as { value: unknown }).value).toBe(value);
    for (const bad of ['x', null, [1], undefined]) expect(decodeFailure(() => decode({ value: bad }))?.field).toBe('value');
  });
});

describe('codec', () => {
  interface Widget {
    id: string;
    amount: number;
    status: 'open' | 'closed';
    note?: string;
    closed_at: string | null;
  }
  const decodeWidget = codec<Widget>('widget', { id: str, amount: int, status: oneOf('open', 'closed'), note: opt(str), closed_at: nullable(str) });

  it('answers only the declared fields, leaving keys and index attributes behind', () => {
    const item = { pk: 'WIDGET#w1', sk: 'WIDGET', gsi1pk: 'x', entity: 'widget', id: 'w1', amount: 500, status: 'open', closed_at: null };
    expect(decodeWidget(item)).toStrictEqual({ id: 'w1', amount: 500, status: 'open', closed_at: null });
  });

  it('throws an invariant error naming the entity and the field of a malformed item', () => {
    const error = decodeFailure(() => decodeWidget({ id: 'w1', amount: 12.5, status: 'open' }));
    expect(error).toBeInstanceOf(StoredItemInvalid);
    expect(error?.entity).toBe('widget');
    expect(error?.field).toBe('amount');
    expect(error?.message).toBe('Stored widget has a malformed amount: expected an integer, found number.');
  });

  it('never puts the stored value into its message', () => {
    const error = decodeFailure(() => decodeWidget({ id: 'w1', amount: 'secret-hash-value', status: 'open' }));
    expect(error?.message).not.toContain('secret-hash-value');
    expect(error?.message).toContain('found string');
  });

  it('answers as internal_error, saying nothing of the item', () => {
    const error = decodeFailure(() => decodeWidget({ id: 'w1', amount: 1, status: 'gone' }));
    const body = problemBody(error, 'req_1');
    expect(body.code).toBe('internal_error');
    expect(body.detail).not.toContain('widget');
  });
});
