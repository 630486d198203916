#!/usr/bin/env bash
# Installs what the test suite needs beyond Node: redis-server (a private instance is started per
# test run on a free loopback port), Debian's postgresql (the SQL sources tests and `threadlab bench sources`
# initdb a private server of their own from /usr/lib/postgresql/*/bin; psql is the bench's baseline), Debian's
# chromium (the web chat's browser tests) and python3-nbformat (the notebook export is checked with nbformat's
# own validator).
# Installs only as root with apt; otherwise names what is missing and stops.
set -euo pipefail
log() { echo "[threadlab] $*" >&2; }
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
{ compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && command -v psql >/dev/null 2>&1; } || missing+=(postgresql)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# Debian's python3, where the package lands (a python3 earlier on PATH, e.g. pyenv's, does not see it).
/usr/bin/python3 -c 'import nbformat' >/dev/null 2>&1 || missing+=(python3-nbformat)
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
