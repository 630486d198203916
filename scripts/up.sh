#!/usr/bin/env bash
# One command from a fresh clone to a running bot: installs dependencies, ensures a Docker engine,
# builds the sandbox image on first use, and starts Threadlab (the local web chat when no Slack or
# Discord tokens are configured). Extra arguments go to `threadlab start`.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[threadlab] $*" >&2; }
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi
bash scripts/ensure-docker.sh
# The soft open-file limit is raised to the hard one (bin/raise-open-files.sh): the caps follow it.
exec sh bin/raise-open-files.sh node bin/threadlab.js start "$@"
