/**
 * `value` × 10^places as an exact integer, read from the number's decimal text (JavaScript's
 * shortest round-trip form, `12.35` for 12.35), never from float arithmetic; undefined when that
 * text has more than `places` decimals or an exponent. 12.5 with 2 places is 1250n.
 */
export function scaledDecimal(value: number, places: number): bigint | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(value));
  if (!match || (match[3]?.length ?? 0) > places) return undefined;
  const [, sign, whole, fraction = ''] = match;
  const units = BigInt(whole! + fraction.padEnd(places, '0'));
  return sign ? -units : units;
}
