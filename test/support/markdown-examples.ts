import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The examples of the README and docs/*.md as the docs test runs them: every fenced block, read
 * from the Markdown at run time. A block is run when its language is a shell (`sh`, `bash`,
 * `shell`) or TypeScript (`ts`, `typescript`) and its info string does not say `no-test` (what
 * cannot run on a laptop: AWS deploys, `npm start` itself, type sketches); every other language
 * (mermaid, json, plain text) is not code to run.
 */

export type ExampleKind = 'shell' | 'typescript';

export interface MarkdownBlock {
  /** The Markdown file, relative to the repository root. */
  file: string;
  /** The 1-based line of the block's first content line. */
  line: number;
  /** The fence's language, lower-cased ('' when none). */
  lang: string;
  /** The words of the info string after the language (`no-test`, `file=receiver.ts`). */
  flags: string[];
  /** The content, with the fence's indentation removed. */
  text: string;
}

const SHELLS = new Set(['sh', 'bash', 'shell']);
const TYPESCRIPT = new Set(['ts', 'typescript']);

export function kindOf(block: MarkdownBlock): ExampleKind | undefined {
  if (SHELLS.has(block.lang)) return 'shell';
  if (TYPESCRIPT.has(block.lang)) return 'typescript';
  return undefined;
}

export const isSkipped = (block: MarkdownBlock): boolean => block.flags.includes('no-test');

/** The file name a TypeScript block is saved as (`file=<name>`), which a later shell block runs. */
export const savedAs = (block: MarkdownBlock): string | undefined => block.flags.find((flag) => flag.startsWith('file='))?.slice('file='.length);

export function markdownBlocks(root: string, file: string): MarkdownBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: MarkdownBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)(.*)$/.exec(lines[index]!);
    if (!open) continue;
    const [, indent, fence, lang, rest] = open as unknown as [string, string, string, string, string];
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end += 1) {
      const line = lines[end]!;
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    blocks.push({ file, line: index + 2, lang: lang.toLowerCase(), flags: rest.trim().split(/\s+/).filter(Boolean), text: body.join('\n') });
    index = end;
  }
  return blocks;
}

/** README.md and every docs/*.md, in that order. */
export function documentedFiles(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `docs/${name}`),
  ];
}
