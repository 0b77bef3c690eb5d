#!/usr/bin/env bash
# Debian's Chromium at /usr/bin/chromium, for the test that opens the API reference page in a real
# headless browser (test/api/docs.test.ts, through playwright-core). CI runs this before npm test
# (.ci/run); a developer runs it once: bash scripts/install-chromium.sh (root, or sudo available).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  /usr/bin/chromium --version
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
/usr/bin/chromium --version
