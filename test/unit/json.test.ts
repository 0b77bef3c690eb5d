import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/kernel/errors';
import * as z from '../../shared/kernel/zod';
import { decimalNumber, decimalPathsOf, segmentsOf, withDecimalPaths } from '../../shared/http/decimals';
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

  it('takes a decimal only where the body schema declares one, to its places and without an exponent', () => {
    const rate = decimalNumber({ min: 0, max: 100, places: 2 });
    const body = z.object({
      markup: z.optional(z.object({ value: rate })),
      lines: z.array(z.object({ rate: z.optional(rate), amount: z.int() })),
      file: withDecimalPaths(z.record(z.string(), z.unknown()), [{ path: 'rows[].rate', places: 2 }]),
    });
    const paths = decimalPathsOf(body);
    expect(paths.map((p) => p.segments.join('/')).sort()).toEqual(['file/rows/[]/rate', 'lines/[]/rate', 'markup/value']);
    const ok = (text: string) => expect(() => assertNoFractionalNumbers(text, paths), text).not.toThrow();
    const refused = (text: string) => expect(() => assertNoFractionalNumbers(text, paths), text).toThrow(AppError);
    ok('{"markup": {"value": 12.5}, "lines": [{"rate": 0.25, "amount": 10}, {"amount": 3}]}');
    ok('{"file": {"rows": [{"rate": 7.25, "note": "1.5"}]}, "lines": []}');
    ok('{"m\\u0061rkup": {"value": 1.5}}'); // an escaped key is the same key
    refused('{"markup": {"value": 12.345}}');
    refused('{"markup": {"value": 1.25e1}}');
    refused('{"lines": [{"rate": 1.5, "amount": 10.5}]}');
    refused('{"markup": {"value": 1, "other": 1.5}}');
    refused('{"value": 12.5}');
    refused('{"lines": [[{"rate": 1.5}]]}');
    expect(segmentsOf('a[][].b')).toEqual(['a', '[]', '[]', 'b']);
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
