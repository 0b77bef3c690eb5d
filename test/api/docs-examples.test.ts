import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedFiles, isSkipped, kindOf, markdownBlocks, savedAs, type MarkdownBlock } from '../support/markdown-examples';
import { ROOT, startNpmStart, type StartedPlatform } from '../support/npm-start';
import { routes } from '../../shared/routes';
import { workers } from '../../shared/workers';

/**
 * Every example is a test: the shell and TypeScript blocks of README.md and docs/*.md, read from
 * the Markdown now (never copied here), run as written against `npm start` on a data folder of
 * this test's, every port free. The examples find the platform as a reader's shell does, through
 * `eval "$(npm run --silent dev:env)"` ($WALLET_URL, $API_KEY, ...), so nothing is substituted.
 *
 * A file's blocks run in order in one bash (a later block uses what an earlier one set), with
 * `set -eo pipefail`: a command that fails fails the file. Each TypeScript block runs at its
 * place with `npx tsx` from the repository root (as the docs say to run them), or, with
 * `file=<name>` in its info string, is saved under that name for a later shell block to run.
 * `command  # => text` must print text (a read, retried for up to 30 s). `curl` is wrapped to fail
 * on an answer of 400 or more unless the command or the comment lines
 * right after it name that status (e.g. `# 404 client_not_found`); a 5xx always fails. A block
 * that cannot run here says `no-test` in its info string; the test fails on any other block in a
 * language it cannot run.
 *
 * The README runs twice in the same data folder, `npm start` stopped with Ctrl-C and started
 * again in between: a second run must work as the first did.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'wallet-docs-'));
let platform: StartedPlatform | undefined;
const saved: string[] = [];

beforeAll(async () => {
  platform = await startNpmStart(dataDir);
}, 240_000);

afterAll(async () => {
  await platform?.stop();
  for (const file of saved) rmSync(file, { force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

interface Script {
  text: string;
  saved: { path: string; text: string }[];
}

/** The statuses of 400 and above that the command at each line of `lines` may answer with. */
function allowedStatuses(lines: string[]): Map<number, string[]> {
  const allowed = new Map<number, string[]>();
  let start = 0;
  while (start < lines.length) {
    let end = start;
    while (end < lines.length - 1 && lines[end]!.trimEnd().endsWith('\\')) end += 1;
    // The comment lines right after a command still speak of it.
    let after = end + 1;
    while (after < lines.length && /^\s*#/.test(lines[after]!)) after += 1;
    const statuses = [...lines.slice(start, after).join('\n').matchAll(/#.*$/gm)].flatMap((comment) => [...comment[0].matchAll(/\b([45]\d\d)\b/g)].map((m) => m[1]!));
    for (let line = start; line <= end; line += 1) allowed.set(line, statuses);
    start = end + 1;
  }
  return allowed;
}

/**
 * `command  # => text`: the command, a read, must print `text` (the comment is how the docs say
 * what comes out), within 30 s of retries. The command, one line or continued over several, is
 * rewritten on the same lines, so line numbers stay those of the Markdown.
 */
function expectations(lines: string[]): string[] {
  const out = [...lines];
  for (let end = 0; end < out.length; end += 1) {
    const match = /^(.*\S)\s+# => (.+)$/.exec(out[end]!);
    if (!match || out[end]!.trimEnd().endsWith('\\')) continue;
    let start = end;
    while (start > 0 && out[start - 1]!.trimEnd().endsWith('\\')) start -= 1;
    const indent = /^\s*/.exec(out[start]!)![0];
    const text = quote(match[2]!.trim());
    // Re-run (a read) until it prints the text, for up to 30 s: a doc's `sleep 2` is a person's
    // patience, not a promise about a machine other suites are loading.
    out[end] = `${match[1]})"; [[ "$__out" == *${text}* ]] && break; sleep 0.2; done; __docs_expect ${text} "$__out"   # => ${match[2]}`;
    out[start] = `${indent}for __try in $(seq 150); do __out="$(${out[start]!.slice(indent.length)}`;
  }
  return out;
}

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

function scriptOf(file: string, blocks: MarkdownBlock[]): Script {
  const body: string[] = [];
  const where: string[] = [];
  const allowed: string[] = [];
  const files: Script['saved'] = [];
  const push = (line: string, origin: string, statuses: string[] = []) => {
    body.push(line);
    where.push(origin);
    allowed.push(statuses.join(' '));
  };
  for (const block of blocks) {
    const origin = (offset: number) => `${block.file}:${block.line + offset}`;
    if (kindOf(block) === 'typescript') {
      const name = savedAs(block);
      if (name) {
        files.push({ path: join(ROOT, name), text: block.text });
        continue;
      }
      const path = join(ROOT, `.docs-example-${file.replace(/\W/g, '-')}-${block.line}.ts`);
      files.push({ path, text: block.text });
      push(`npx tsx ${quote(path)}`, origin(0));
      continue;
    }
    const lines = expectations(block.text.split('\n'));
    const statuses = allowedStatuses(lines);
    lines.forEach((line, offset) => push(line, origin(offset), statuses.get(offset)));
  }
  const prelude = [
    'set -eo pipefail',
    'declare -A __where __allowed',
    'curl() {',
    '  local line=${BASH_LINENO[0]} out status',
    `  out=$(command curl -w '\\n%{http_code}' "$@") || { local code=$?; echo "(curl exited $code at \${__where[$line]:-line $line})" >&2; return $code; }`,
    `  status=\${out##*$'\\n'}; out=\${out%$'\\n'*}; printf '%s\\n' "$out"; if (( status >= 500 )) || { (( status >= 400 )) && [[ " \${__allowed[$line]} " != *" $status "* ]]; }; then echo "docs-examples: \${__where[$line]:-line $line}: answered $status: $out" >&2; return 1; fi; }`,
    `__docs_expect() { printf '%s\\n' "$2"; [[ "$2" == *"$1"* ]] || { echo "docs-examples: \${__where[\${BASH_LINENO[0]}]:-line \${BASH_LINENO[0]}}: printed no '$1'" >&2; return 1; }; }`,
  ];
  const first = prelude.length + 1;
  const tables = [
    ...where.map((origin, index) => `__where[${first + index}]=${quote(origin)}`),
    ...allowed.map((statuses, index) => (statuses ? `__allowed[${first + index}]=${quote(statuses)}` : '')).filter(Boolean),
  ];
  // Body first (its line numbers are what BASH_LINENO reports), then the tables, read at the end
  // of parsing: so the body runs inside a function called once the tables are set.
  const text = [...prelude, ...body, '', ...tables].join('\n');
  return { text: wrapInMain(text, prelude.length, body.length), saved: files };
}

/** Puts the body in a function defined before and called after the tables, keeping its line numbers. */
function wrapInMain(text: string, preludeLines: number, bodyLines: number): string {
  const lines = text.split('\n');
  // The prelude's last line gains the opening brace; the line after the body closes it.
  lines[preludeLines - 1] += '; __docs_main() {';
  lines[preludeLines + bodyLines] = '}';
  return `${lines.join('\n')}\n__docs_main\n`;
}

async function runScript(file: string, script: Script): Promise<{ code: number | null; output: string }> {
  for (const { path, text } of script.saved) {
    if (existsSync(path) && !saved.includes(path)) throw new Error(`${file} saves ${path}, which exists already`);
    writeFileSync(path, text);
    saved.push(path);
  }
  const scriptFile = join(dataDir, `${file.replace(/\W/g, '-')}.sh`);
  writeFileSync(scriptFile, script.text);
  const { LOG_LEVEL: _unset, ...inherited } = process.env;
  // Its own process group: the receivers the examples leave running are stopped with it.
  const child = spawn('bash', [scriptFile], { cwd: ROOT, detached: true, env: { ...inherited, DATA_DIR: dataDir } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 300_000);
  const code = await new Promise<number | null>((done) => child.once('exit', (exit) => done(exit)));
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // nothing left in the group
  }
  return { code, output };
}

const files = documentedFiles(ROOT).map((file) => ({ file, blocks: markdownBlocks(ROOT, file) }));

describe('the examples of the README and docs', () => {
  it('are all in a language this test runs, or marked no-test', () => {
    const unrunnable = files.flatMap(({ blocks }) =>
      blocks.filter((block) => !isSkipped(block) && kindOf(block) === undefined && /^(js|javascript|tsx|zsh|console|powershell|python|py)$/.test(block.lang)),
    );
    expect(unrunnable.map((block) => `${block.file}:${block.line} (${block.lang})`)).toEqual([]);
    // Some blocks do run: the test cannot pass by skipping everything.
    expect(files.flatMap(({ blocks }) => blocks.filter((block) => kindOf(block) && !isSkipped(block))).length).toBeGreaterThan(20);
  });

  it("docs/infrastructure.md counts the manifest's routes and workers", () => {
    const text = readFileSync(join(ROOT, 'docs/infrastructure.md'), 'utf8');
    const count = (api: string) => routes.filter((route) => route.api === api).length;
    const kinds = (kind: string) => workers.filter((worker) => worker.trigger.kind === kind).length;
    const expected = `real (${routes.length} routes: ${count('ledger')} ledger, ${count('wallet')} wallet, ${count('auth')} auth, ${count('console')} console; ${workers.length} workers: ${kinds('stream')} stream, ${kinds('queue')} queue, ${kinds('schedule')} schedule)`;
    expect(text).toContain(expected);
  });

  const runnable = files.filter(({ blocks }) => blocks.some((block) => kindOf(block) && !isSkipped(block)));
  for (const { file, blocks } of runnable) {
    const examples = blocks.filter((block) => kindOf(block) && !isSkipped(block));
    const runs = file === 'README.md' ? 2 : 1;
    it(`${file}: ${examples.length} example(s) run as written${runs > 1 ? ', twice in the same data folder with a restart between' : ''}`, { timeout: 600_000 }, async () => {
      for (let run = 1; run <= runs; run += 1) {
        if (run > 1) {
          expect(await platform!.stop()).toBe(0);
          platform = await startNpmStart(dataDir);
        }
        const result = await runScript(file, scriptOf(file, examples));
        const tail = result.output
          .split('\n')
          .slice(-40)
          .map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line))
          .join('\n');
        expect(result.code, `${file}, run ${run}:\n${tail}`).toBe(0);
        expect(result.output).not.toContain('docs-examples:');
      }
    });
  }
});
