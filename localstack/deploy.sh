#!/usr/bin/env bash
# Deploys both stacks (Ledger, Wallet) to a running LocalStack with cdklocal, bundling first, then
# registers the wallet as a ledger consumer (the operator's step, spec part 1).
#   docker compose -f localstack/docker-compose.yml up -d
#   localstack/deploy.sh            # STAGE=local
# The template is the one LocalStack's free image can deploy (localstack/README.md): the ledger's
# embedded OIDC issuer instead of Cognito, no VPC, API hosts under LocalStack's domain.
# Not run on the build machines (no Docker there); see localstack/README.md for what to expect.
set -euo pipefail
cd "$(dirname "$0")/.."

export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-test}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-test}"
export AWS_REGION="${AWS_REGION:-us-east-1}"
export AWS_DEFAULT_REGION="$AWS_REGION"
export AWS_ENDPOINT_URL="${AWS_ENDPOINT_URL:-http://localhost.localstack.cloud:4566}"
export CDK_DISABLE_VERSION_CHECK=1
# Only stage local may leave out the ledger's VPC (lib/ledger-issuer.ts refuses it elsewhere).
STAGE="${STAGE:-local}"
ACCOUNT="${CDK_DEFAULT_ACCOUNT:-000000000000}"
# Where LocalStack answers API Gateway hosts: the functions call the ledger API (and its issuer) there.
EXECUTE_API_DOMAIN="${EXECUTE_API_DOMAIN:-localhost.localstack.cloud:4566}"
CONTEXT=(-c stage="$STAGE" -c ledgerIssuer=embedded -c ledgerVpc=false -c executeApiDomain="$EXECUTE_API_DOMAIN")
# cdklocal wraps the project's own aws-cdk CLI (it must be able to read aws-cdk-lib's assembly:
# see docs/infrastructure.md about the CLI version).
CDKLOCAL=(npx --yes "aws-cdk-local@${AWS_CDK_LOCAL_VERSION:-3}")
OUTPUTS=localstack/outputs.json

if ! curl -fsS "$AWS_ENDPOINT_URL/_localstack/health" >/dev/null; then
  echo "LocalStack is not answering at $AWS_ENDPOINT_URL." >&2
  echo "Start it with: docker compose -f localstack/docker-compose.yml up -d" >&2
  exit 1
fi

echo "== bootstrap aws://$ACCOUNT/$AWS_REGION"
"${CDKLOCAL[@]}" bootstrap "aws://$ACCOUNT/$AWS_REGION" -c skipBundling=true "${CONTEXT[@]}"

echo "== deploy (bundles every function first)"
"${CDKLOCAL[@]}" deploy --all \
  --require-approval never \
  -c skipBundling=false \
  "${CONTEXT[@]}" \
  --outputs-file "$OUTPUTS"

echo "== register the wallet as a ledger consumer"
# The ledger stack's outputs: its table and the sub of the wallet's tokens (its client id, `wallet`).
output() { node -e 'const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const s = Object.values(o).find((v) => v && v[process.argv[2]] !== undefined); if (!s) process.exit(1); process.stdout.write(String(s[process.argv[2]]));' "$OUTPUTS" "$1"; }
LEDGER_TABLE="$(output LedgerTableName)" DYNAMODB_ENDPOINT="$AWS_ENDPOINT_URL" \
  npm run --silent ledger:consumers -- ensure --name wallet --sub "$(output WalletConsumerSub)"

echo "== outputs ($OUTPUTS)"
cat "$OUTPUTS"
