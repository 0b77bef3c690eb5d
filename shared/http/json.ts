import { createHash } from 'node:crypto';
import { AppError } from '../kernel/errors';
import { decimalPathAt, type DecimalPath } from './decimals';

/**
 * Amounts are integer minor units everywhere, so a number literal with a fraction or an exponent
 * is refused wherever it appears in a body. JSON.parse cannot tell `10.0` from `10`, so the raw
 * text is scanned (strings skipped) before parsing. The one exception: a field the route's body
 * schema declares decimal (./decimals.ts) takes a plain decimal there (no exponent, at most its
 * places); finding those positions needs the path, so a body with decimal fields is scanned by
 * `scanWithPaths`.
 */
export function assertNoFractionalNumbers(text: string, decimalPaths: readonly DecimalPath[] = []): void {
  if (decimalPaths.length > 0) return scanWithPaths(text, decimalPaths);
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c /* \ */) i += 1;
      else if (ch === 0x22 /* " */) inString = false;
      continue;
    }
    if (ch === 0x22) {
      inString = true;
      continue;
    }
    const isNumberStart = ch === 0x2d /* - */ || (ch >= 0x30 && ch <= 0x39);
    if (!isNumberStart) continue;
    const end = numberEnd(text, i);
    const literal = text.slice(i, end);
    if (/[.eE]/.test(literal)) throw integersOnly(literal);
    i = end - 1;
  }
}

const numberEnd = (text: string, start: number): number => {
  let end = start + 1;
  while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end += 1;
  return end;
};

const integersOnly = (literal: string) =>
  new AppError('invalid_request', `Numbers must be integers (amounts are in minor units); found ${literal.slice(0, 40)}.`);

type Frame = { kind: 'object'; key: string; expectsKey: boolean } | { kind: 'array' };

/** The scan above, keeping the path to each number so a declared decimal field may hold a fraction. */
function scanWithPaths(text: string, decimalPaths: readonly DecimalPath[]): void {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    const top = stack[stack.length - 1];
    if (ch === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.kind === 'object' && top.expectsKey) {
        top.key = keyOf(text.slice(i, end + 1));
        top.expectsKey = false;
      }
      i = end;
    } else if (ch === '{') stack.push({ kind: 'object', key: '', expectsKey: true });
    else if (ch === '[') stack.push({ kind: 'array' });
    else if (ch === '}' || ch === ']') stack.pop();
    else if (ch === ',' && top?.kind === 'object') top.expectsKey = true;
    else if (ch === '-' || (ch >= '0' && ch <= '9')) {
      const end = numberEnd(text, i);
      const literal = text.slice(i, end);
      if (/[.eE]/.test(literal)) {
        const declared = decimalPathAt(decimalPaths, stack.map((frame) => (frame.kind === 'array' ? '[]' : frame.key)));
        if (!declared) throw integersOnly(literal);
        if (!new RegExp(`^-?\\d+(\\.\\d{1,${declared.places}})?$`).test(literal)) {
          throw new AppError('invalid_request', `This field takes a decimal with at most ${declared.places} places and no exponent; found ${literal.slice(0, 40)}.`);
        }
      }
      i = end - 1;
    }
  }
}

/** An object key as JSON spells it, escapes decoded (malformed JSON: the parser refuses it later). */
function keyOf(literal: string): string {
  if (!literal.includes('\\')) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal;
  }
}

/**
 * A key named `__proto__` is refused wherever it appears in a body: JavaScript objects, ours and
 * most clients', cannot keep it as an ordinary key, so it would be dropped without a word (or worse).
 * Only text that could spell it (literally or through a `\\u` escape) is parsed to look.
 */
export function assertNoPrototypeKeys(text: string): void {
  if (!text.includes('__proto__') && !text.includes('\\u')) return;
  let found = false;
  try {
    JSON.parse(text, (key, value: unknown) => {
      if (key === '__proto__') found = true;
      return value;
    });
  } catch {
    return; // malformed JSON: the body parser refuses it
  }
  if (found) throw new AppError('invalid_request', 'A key named __proto__ is not accepted anywhere in a request body.');
}

/**
 * Characters no text field takes, anywhere in a body (keys included): C0 controls but tab, line
 * feed and carriage return; DEL and the C1 controls; the bidirectional embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069: an RLO in a product title reverses what Explore shows);
 * and a UTF-16 surrogate without its pair (a `\ud800` escape: strict JSON parsers and UTF-8 refuse
 * the document that serves it back). The marks LRM and RLM, which right-to-left text needs, stay.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is what this expression is for
const UNACCEPTED_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;
/** Raw text that may hold one: a `\u` escape, or a raw bidirectional control (strict UTF-8 holds no lone surrogate, and JSON no raw control). */
const MAY_HOLD_UNACCEPTED = /\\u|[\u202a-\u202e\u2066-\u2069\u007f-\u009f]/;

/** Refuses a body with a character no text field takes (UNACCEPTED_TEXT), naming the field. Cheap when the text holds no escape. */
export function assertAcceptedText(text: string): void {
  if (!MAY_HOLD_UNACCEPTED.test(text)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return; // malformed JSON: the body parser refuses it
  }
  const found = unacceptedAt(parsed, '');
  if (found) {
    const { field, char } = found;
    const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    const message = `contains ${code}, a control, bidirectional-override or unpaired-surrogate character no text field takes`;
    throw new AppError('invalid_request', `${field || 'The body'}: ${message}.`, { errors: [{ field: field || 'body', message }] });
  }
}

function unacceptedAt(value: unknown, path: string): { field: string; char: string } | undefined {
  if (typeof value === 'string') {
    const match = UNACCEPTED_TEXT.exec(value);
    return match ? { field: path, char: match[0] } : undefined;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unacceptedAt(item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      const inKey = UNACCEPTED_TEXT.exec(key);
      if (inKey) return { field, char: inKey[0] };
      const found = unacceptedAt(item, field);
      if (found) return found;
    }
  }
  return undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Decodes a request body as strict UTF-8; invalid byte sequences are the client's error. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new AppError('invalid_request', 'The request body is not valid UTF-8.');
  }
}

export function parseJsonBody(text: string): unknown {
  assertNoFractionalNumbers(text);
  assertNoPrototypeKeys(text);
  assertAcceptedText(text);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('invalid_request', 'The request body is not valid JSON.');
  }
}

export const isJsonContentType = (value: string | undefined): boolean =>
  value !== undefined && /^application\/([\w.+-]+\+)?json\s*(;.*)?$/i.test(value.trim());

/** JSON with object keys sorted and undefined members dropped: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The one idempotency fingerprint (the saga's keys, the ledger's keys, tenant creation): sha256 of
 * the operation and the canonical JSON of everything that identifies the request, whitespace and
 * key order aside. Two requests under one key are the same request exactly when these are equal.
 */
export function fingerprintOf(operation: string, parts: unknown, encoding: 'hex' | 'base64url' = 'base64url'): string {
  return createHash('sha256').update(operation).update('\n').update(canonicalJson(parts)).digest(encoding);
}
