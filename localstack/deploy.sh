#!/usr/bin/env bash
# Deploys both stacks (Ledger, Wallet) to a running LocalStack with cdklocal, bundling first.
#   docker compose -f localstack/docker-compose.yml up -d
#   localstack/deploy.sh            # STAGE=local by default
# Not run on the build machines (no Docker there); see localstack/README.md for what to expect.
set -euo pipefail
cd "$(dirname "$0")/.."

export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"
export AWS_REGION="${AWS_REGION:-us-east-1}"
export AWS_DEFAULT_REGION="$AWS_REGION"
export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://localhost.localstack.cloud:4566}"
export CDK_DISABLE_VERSION_CHECK=1
STAGE="${STAGE:-local}"
ACCOUNT="${CDK_DEFAULT_ACCOUNT:-000000000000}"
# cdklocal wraps the project's own aws-cdk CLI (it must be able to read aws-cdk-lib's assembly:
# see docs/infrastructure.md about the CLI version).
CDKLOCAL=(npx --yes "aws-cdk-local@${AWS_CDK_LOCAL_VERSION:-3}")

if ! curl -fsS "$AWS_ENDPOINT_URL/_localstack/health" >/dev/null; then
  echo "LocalStack is not answering at $AWS_ENDPOINT_URL." >&2
  echo "Start it with: docker compose -f localstack/docker-compose.yml up -d" >&2
  exit 1
fi

echo "== bootstrap aws://$ACCOUNT/$AWS_REGION"
"${CDKLOCAL[@]}" bootstrap "aws://$ACCOUNT/$AWS_REGION" -c skipBundling=true -c stage="$STAGE"

echo "== deploy (bundles every function first)"
"${CDKLOCAL[@]}" deploy --all \
  --require-approval never \
  -c skipBundling=false \
  -c stage="$STAGE" \
  --outputs-file localstack/outputs.json

echo "== outputs (localstack/outputs.json)"
cat localstack/outputs.json
