import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/kernel/errors';
import { assertNoFractionalNumbers, assertNoPrototypeKeys, isJsonContentType, parseJsonBody } from '../../shared/http/json';

describe('integer-only JSON', () => {
  it('accepts any JSON whose numbers are all integers', () => {
    fc.assert(
      fc.property(fc.jsonValue().filter((v) => !JSON.stringify(v).match(/\d[.eE]|__proto__/)), (value) => {
        const text = JSON.stringify(value);
        expect(parseJsonBody(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  it('refuses any number with a fraction or exponent, anywhere', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)), (d) => {
        expect(() => assertNoFractionalNumbers(JSON.stringify({ nested: [{ amount: d }] }))).toThrow(AppError);
      }),
    );
    expect(() => assertNoFractionalNumbers('{"amount": 10.0}')).toThrow(/integers/);
    expect(() => assertNoFractionalNumbers('[1E2]')).toThrow(/integers/);
  });

  it('does not look inside strings, escaped quotes included', () => {
    expect(() => assertNoFractionalNumbers('{"note": "1.5 \\" 2.5", "amount": 3}')).not.toThrow();
  });

  it('refuses a __proto__ key at any depth, spelled plainly or escaped, and nothing else', () => {
    expect(() => assertNoPrototypeKeys('{"metadata": {"__proto__": "x"}}')).toThrow(/__proto__/);
    expect(() => assertNoPrototypeKeys('[{"a": [{"\\u005f_proto__": {}}]}]')).toThrow(/__proto__/);
    expect(() => assertNoPrototypeKeys('{"description": "__proto__", "constructor": "\\u0041"}')).not.toThrow();
    expect(() => assertNoPrototypeKeys('{"__proto__": ')).not.toThrow(); // malformed: the parser's refusal, not this one
  });

  it('recognises JSON content types', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('application/json; charset=utf-8')).toBe(true);
    expect(isJsonContentType('application/merge-patch+json')).toBe(true);
    expect(isJsonContentType('text/plain')).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
  });
});
