import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Test helpers are written once (issue 34 item 4): a helper two test files need lives in
 * test/support/ and both import it. This holds the tree to it, reading every test source with the
 * TypeScript parser: a helper is a function declaration or a `const` whose value is a function, at
 * the top of a file or of a `describe` block's body. No name is a helper of two files, no test file
 * defines a helper under the name of an export of test/support/, and no two files define a helper
 * with the same body under different names. Binding a shared maker to a file's own state
 * (`const register = endpointRegistrar(api, ...)`) defines nothing and is how files specialise one.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const TEST = join(ROOT, 'test');
/** Sources that are not the suite's: the lint fixtures are modules of a made-up tree. */
const NOT_HELPERS = [join(TEST, 'fixtures')];
/** A body shorter than this (an arrow that returns one property) may repeat without being a helper written twice. */
const MIN_BODY = 60;

export interface Helper {
  file: string;
  name: string;
  line: number;
  /** The definition without its name and blanks, to find one body under two names. */
  body: string;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (NOT_HELPERS.includes(path)) return [];
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const isFunction = (node: ts.Node | undefined): node is ts.ArrowFunction | ts.FunctionExpression => !!node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

/** The helpers a source defines, at its top and at the top of its describe blocks' bodies. */
export function helpersOf(file: string, text: string): Helper[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const helpers: Helper[] = [];
  const add = (name: string, node: ts.Node, body: string) =>
    helpers.push({ file, name, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, body: body.replace(/\s+/g, '') });
  const visit = (statements: readonly ts.Statement[]) => {
    for (const statement of statements) {
      if (ts.isFunctionDeclaration(statement) && statement.name && statement.body) {
        const text = statement.getText(source);
        add(statement.name.text, statement, text.slice(text.indexOf('(')));
      } else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name) && isFunction(declaration.initializer)) add(declaration.name.text, declaration, declaration.initializer.getText(source));
        }
      } else if (ts.isExpressionStatement(statement) && ts.isCallExpression(statement.expression) && /^describe\b/.test(statement.expression.expression.getText(source))) {
        for (const argument of statement.expression.arguments) if (isFunction(argument) && ts.isBlock(argument.body)) visit(argument.body.statements);
      }
    }
  };
  visit(source.statements);
  return helpers;
}

/** The names a support module exports (functions, constants, classes). */
export function exportsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const exported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  return source.statements.flatMap((statement) => {
    if (!exported(statement)) return [];
    if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) return [statement.name.text];
    if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
    return [];
  });
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

/** What breaks the rule, one line each; empty when nothing does. */
export function duplicatedHelpers(sources: readonly { file: string; text: string }[], supportDir: string): string[] {
  const helpers = sources.flatMap(({ file, text }) => helpersOf(file, text));
  const where = (helper: Helper) => `${helper.file}:${helper.line}`;
  const files = (defined: Helper[]) => new Set(defined.map((helper) => helper.file)).size;
  const problems: string[] = [];
  for (const [name, defined] of groupBy(helpers, (helper) => helper.name)) {
    if (files(defined) > 1) problems.push(`${name} is defined in ${files(defined)} files: ${defined.map(where).join(', ')}`);
  }
  const supportExports = new Map(sources.filter(({ file }) => file.startsWith(supportDir)).flatMap(({ file, text }) => exportsOf(file, text).map((name) => [name, file] as const)));
  for (const helper of helpers) {
    const owner = supportExports.get(helper.name);
    if (owner && owner !== helper.file) problems.push(`${where(helper)} defines ${helper.name}, which ${owner} exports`);
  }
  for (const defined of groupBy(helpers.filter((helper) => helper.body.length >= MIN_BODY), (helper) => helper.body).values()) {
    const names = [...new Set(defined.map((helper) => helper.name))];
    if (files(defined) > 1 && names.length > 1) problems.push(`one body under ${names.join(', ')}: ${defined.map(where).join(', ')}`);
  }
  return problems;
}

describe('test helpers', () => {
  it('are each defined once, in one file: a helper two files need is imported from test/support/', () => {
    const sources = sourcesUnder(TEST).map((path) => ({ file: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
    expect(sources.length).toBeGreaterThan(100);
    expect(duplicatedHelpers(sources, 'test/support/')).toEqual([]);
  });

  it('finds a helper written again, under its name or another, or over a support export', () => {
    const refusal = 'async function refusal(promise: Promise<unknown>) {\n  const error = await promise.then(() => undefined, (e: unknown) => e);\n  return error;\n}\n';
    const sources = [
      { file: 'test/support/services.ts', text: 'export const requestIds = () => ({ idempotencyKey: uuidv7(), requestId: uuidv7() });\n' },
      { file: 'test/integration/a.test.ts', text: refusal },
      { file: 'test/integration/b.test.ts', text: `describe('b', () => {\n  ${refusal}});\n` },
      { file: 'test/integration/c.test.ts', text: refusal.replace('refusal', 'refusedWith') },
      { file: 'test/integration/d.test.ts', text: 'it(\'x\', () => undefined);\nconst requestIds = () => ({ idempotencyKey: uuidv7(), requestId: uuidv7() });\n' },
      // Binding a shared maker defines no helper; a one-line accessor may repeat.
      { file: 'test/integration/e.test.ts', text: 'const register = endpointRegistrar(api, () => receiver, () => key);\nconst idOf = (a: { id: string }) => a.id;\n' },
      { file: 'test/integration/f.test.ts', text: 'const register = endpointRegistrar(api, () => receiver, () => other);\nconst keyOf = (a: { id: string }) => a.id;\n' },
    ];
    expect(duplicatedHelpers(sources, 'test/support/')).toEqual([
      'requestIds is defined in 2 files: test/support/services.ts:1, test/integration/d.test.ts:2',
      'refusal is defined in 2 files: test/integration/a.test.ts:1, test/integration/b.test.ts:2',
      'test/integration/d.test.ts:2 defines requestIds, which test/support/services.ts exports',
      'one body under refusal, refusedWith: test/integration/a.test.ts:1, test/integration/b.test.ts:2, test/integration/c.test.ts:1',
    ]);
  });
});
