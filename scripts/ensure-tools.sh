#!/usr/bin/env bash
# Installs what the test suite needs beyond Node: redis-server (a private instance is started per
# test run on a free loopback port) and Debian's chromium (the web chat's browser tests).
# Installs only as root with apt; otherwise names what is missing and stops.
set -euo pipefail
log() { echo "[threadlab] $*" >&2; }
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  log "installing ${missing[*]} (apt-get install; one time)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null 2>&1 || log "warning: apt-get update failed; trying the install anyway"
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
else
  log "error: the tests need: ${missing[*]}. Install them (Debian/Ubuntu: sudo apt-get install ${missing[*]})."
  exit 1
fi
