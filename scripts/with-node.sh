#!/bin/sh
# Runs a command with Node.js <major> first on PATH, so it and every `node` it starts run on that
# Node.js: `sh scripts/with-node.sh 24 node node_modules/vitest/vitest.mjs run` is
# `npm run test:lambda-node`, the suite on the major of the Lambda runtime (lib/function.ts);
# bench:cold's BENCH_NODE=24 finds that Node.js through it too (scripts/cold-imports.ts).
# npx fetches that Node.js once from the npm registry (the `node` package) into its cache.
set -eu
if [ $# -lt 2 ] || ! expr "$1" : '[0-9][0-9]*$' > /dev/null; then
  echo "usage: sh scripts/with-node.sh <major, e.g. 24> <command> [argument ...]" >&2
  exit 2
fi
major=$1
shift
node_path=$(npx -y "node@$major" -p process.execPath)
PATH="$(dirname "$node_path"):$PATH" exec "$@"
