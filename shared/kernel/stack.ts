import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * A bundled function's stack traces, mapped back to the TypeScript they came from when an error is
 * logged: the source map shipped beside the bundle (dist/<handler>/index.mjs.map) is read on the
 * first error that names the bundle, not at import. Node's `--enable-source-maps` reads and parses
 * every map when the module loads, about 10 ms of every cold start (docs/performance.md); errors
 * are rare, cold starts are not. Frames of files without a map beside them are left as they are.
 */

const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = null;
    try {
      const path = file.startsWith('file:') ? fileURLToPath(file) : file;
      if (existsSync(`${path}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** `file:///var/task/index.mjs:3:12345` (or a plain path) in a stack frame. */
const BUNDLE_FRAME = /((?:file:\/\/)?\/[^\s():]+\.mjs):(\d+):(\d+)/g;

/** The stack with each frame of a bundle that has its map beside it as `shared/…/file.ts:line:column`. */
export function mappedStack(stack: string | undefined): string | undefined {
  if (stack === undefined || !stack.includes('.mjs:')) return stack;
  return stack.replace(BUNDLE_FRAME, (frame: string, file: string, line: string, column: string) => {
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry) || !entry.originalSource) return frame;
    return `${entry.originalSource.replace(/^(\.\.\/)+/, '')}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
