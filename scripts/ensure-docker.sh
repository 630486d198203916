#!/usr/bin/env bash
# Makes sure a Docker engine answers. As root on Debian/Ubuntu it installs (apt-get install docker.io)
# and starts one when missing, saying so; elsewhere it stops with exactly what to install.
set -euo pipefail
log() { echo "[threadlab] $*" >&2; }

engine_up() { docker info >/dev/null 2>&1 || node -e "
  const http=require('http');const h=process.env.DOCKER_HOST;
  const o=h&&h.startsWith('tcp://')?{host:new URL(h.replace('tcp:','http:')).hostname,port:new URL(h.replace('tcp:','http:')).port}:{socketPath:(h||'unix:///var/run/docker.sock').replace('unix://','')};
  http.get({...o,path:'/_ping',timeout:2000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1));" ; }

if engine_up; then exit 0; fi
if [ -n "${DOCKER_HOST:-}" ]; then
  log "error: the Docker engine at DOCKER_HOST=$DOCKER_HOST does not answer. Start it, or unset DOCKER_HOST to use the local one."
  exit 1
fi

is_root=false; [ "$(id -u)" = 0 ] && is_root=true
has_apt=false; command -v apt-get >/dev/null 2>&1 && has_apt=true

if ! command -v dockerd >/dev/null 2>&1; then
  if $is_root && $has_apt; then
    log "no Docker engine found: installing it with apt-get install docker.io (one time, ~1 minute)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null 2>&1 || log "warning: apt-get update failed; trying the install anyway"
    apt-get install -y -q docker.io >/dev/null
  else
    log "error: no Docker engine found. Install Docker Engine (on Debian/Ubuntu: sudo apt-get install docker.io;"
    log "       elsewhere see your distribution's Docker Engine package) and start it, then run this again."
    log "       Or point DOCKER_HOST at a running engine."
    exit 1
  fi
fi

if ! $is_root; then
  log "error: the Docker engine is installed but not running or not reachable by $(id -un)."
  log "       Start it (sudo systemctl start docker) and add yourself to the docker group (sudo usermod -aG docker $(id -un))."
  exit 1
fi

if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  log "starting the Docker engine (systemctl start docker)"
  systemctl start docker || true
fi
if ! engine_up; then
  args=${THREADLAB_DOCKERD_ARGS:---bridge=none --iptables=false --ip-masq=false}
  logfile=${THREADLAB_DOCKERD_LOG:-/var/log/threadlab-dockerd.log}
  log "starting the Docker engine in the background: dockerd $args (log: $logfile)"
  # shellcheck disable=SC2086
  nohup dockerd $args >"$logfile" 2>&1 &
fi
for _ in $(seq 1 60); do
  if engine_up; then log "Docker engine is up"; exit 0; fi
  sleep 0.5
done
log "error: the Docker engine did not come up within 30 s; see ${THREADLAB_DOCKERD_LOG:-/var/log/threadlab-dockerd.log}"
exit 1
