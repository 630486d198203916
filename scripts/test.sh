#!/usr/bin/env bash
# `npm test`: ensures a Docker engine, redis-server and chromium, then runs every vitest project
# (unit, integration with real Docker and Redis, e2e with real client libraries against local fakes).
# The global test set-up builds the sandbox image when its definition changed, dist/ when a source changed
# (spawned CLI processes run the compiled code), and starts a private Redis. The run ends with a timing summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-docker.sh
bash scripts/ensure-tools.sh
exec npx vitest run "$@"
