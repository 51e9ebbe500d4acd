#!/usr/bin/env bash
# Test setup, not run by `make test`: install Debian's chromium so that tests/cli/test_report.py can
# open the HTML report in a headless browser (that test skips, naming this script's make target,
# when no browser is installed). Needs root and Debian's package archive.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
