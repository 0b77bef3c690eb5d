/**
 * What @middy/core gets in a bundle for its imports of node:stream/web and node:timers
 * (scripts/bundle.ts, `middyBuiltins`): the same values, without loading at import what only its
 * streamed-response path uses.
 *  - `ReadableStream`: middy tests a handler's answer with `instanceof ReadableStream` on that path
 *    only (streamifyResponse, which no function sets). The global ReadableStream is the same
 *    class; it is read when tested, so node:stream/web's web streams load only then.
 *  - `setTimeout`: node:timers' own (the global is the same function); an ES import of node:timers
 *    also loads timers/promises, which middy does not use.
 */
export class ReadableStream {
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }
}

export const { setTimeout } = globalThis;
