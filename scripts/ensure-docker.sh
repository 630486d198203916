#!/usr/bin/env bash
# Makes sure a Docker engine answers. As root on Debian/Ubuntu it installs (apt-get install docker.io)
# and starts one when missing, saying so; elsewhere it stops with exactly what to install.
# Then, where it can (root, apt, an engine on this machine), it installs gVisor (apt-get install runsc) and
# registers it with the engine as the runtime "runsc", so that sandboxes get a second wall
# (THREADLAB_SANDBOX_RUNTIME=auto picks it). Failing that is a notice: sandboxes then run under runc.
set -euo pipefail
log() { echo "[threadlab] $*" >&2; }

engine_up() { docker info >/dev/null 2>&1 || node -e "
  const http=require('http');const h=process.env.DOCKER_HOST;
  const o=h&&h.startsWith('tcp://')?{host:new URL(h.replace('tcp:','http:')).hostname,port:new URL(h.replace('tcp:','http:')).port}:{socketPath:(h||'unix:///var/run/docker.sock').replace('unix://','')};
  http.get({...o,path:'/_ping',timeout:2000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1));" ; }

# The runtime arguments gVisor is registered with, each needed on this kind of host (see README, Security):
#   --platform=ptrace  no KVM needed (the default of Debian's build, said explicitly)
#   --network=none     the sandbox has no network at all; gVisor's own netstack would otherwise refuse to
#                      start in an engine run with --bridge=none ("cannot run with network enabled in root
#                      network namespace")
#   --oci-seccomp      apply the container's seccomp profile inside gVisor too (ignored without it)
RUNSC_ARGS='["--platform=ptrace","--network=none","--oci-seccomp"]'

# Beside "runsc", one runtime per gVisor platform the installed runsc offers ("runsc-ptrace", "runsc-kvm", and
# "runsc-systrap" on releases from 2023 on), the same arguments but --platform. Which one sandboxes use is chosen by
# measurement where the sandbox image is (threadlab doctor, or the bot's start): each is probed with a bounded
# start of the image, and the fastest that passed wins, ptrace the fallback (sandbox/platform-probe.ts). Only
# registering here: on a fresh machine the image is built after this script, and a platform that hangs (KVM where
# /dev/kvm cannot run gVisor's guest) must cost the probe's bound, never this script's.
runsc_platforms() {
  # `runsc platforms` on releases that have it (one name a line), else the -platform line of `runsc flags`
  # ("specifies which platform to use: ptrace (default), kvm."); both read, each bounded, nothing found is "".
  { timeout 10 "$1" platforms 2>/dev/null || true; timeout 10 "$1" flags 2>&1 | grep -A1 -- '-platform string' || true; } |
    grep -oE '\b(ptrace|kvm|systrap)\b' | sort -u | tr '\n' ' ' || true
}

runsc_registered() { timeout 20 docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }

# Installs runsc with apt and merges it into /etc/docker/daemon.json "runtimes" (keeping whatever else is
# there), then SIGHUPs dockerd, which reloads runtimes without a restart. Never fails the script.
ensure_runsc() {
  [ "${THREADLAB_SKIP_RUNSC:-}" = 1 ] && return 0
  if [ -n "${DOCKER_HOST:-}" ]; then
    runsc_registered || log "notice: gVisor (runsc) is not registered with the engine at DOCKER_HOST; sandboxes use runc. Register runsc on that host to add a second wall."
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    runsc_registered || log "notice: gVisor (runsc) is not registered with the Docker engine; sandboxes use runc. As root on Debian/Ubuntu this script installs it; elsewhere see https://gvisor.dev/docs/user_guide/install/"
    return 0
  fi
  local runsc_path
  runsc_path=$(command -v runsc || true)
  if [ -z "$runsc_path" ]; then
    log "installing gVisor for a second wall around sandboxes (apt-get install runsc)"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q runsc >/dev/null 2>&1; then
      apt-get update -q >/dev/null 2>&1 || true
      apt-get install -y -q runsc >/dev/null 2>&1 || true
    fi
    runsc_path=$(command -v runsc || true)
    if [ -z "$runsc_path" ]; then
      log "notice: could not install runsc (apt-get install runsc failed); sandboxes use runc"
      return 0
    fi
  fi
  local daemon_json=/etc/docker/daemon.json changed
  mkdir -p /etc/docker
  local platforms
  platforms=$(runsc_platforms "$runsc_path")
  [ -e /dev/kvm ] || platforms=${platforms//kvm/}
  if ! changed=$(RUNSC_PATH="$runsc_path" RUNSC_ARGS="$RUNSC_ARGS" RUNSC_PLATFORMS="$platforms" DAEMON_JSON="$daemon_json" node -e '
    const fs = require("fs");
    const file = process.env.DAEMON_JSON;
    let config = {};
    if (fs.existsSync(file)) {
      const text = fs.readFileSync(file, "utf8");
      if (text.trim()) config = JSON.parse(text);
    }
    if (!config || typeof config !== "object" || Array.isArray(config)) throw new Error(file + " is not a JSON object");
    const wanted = { path: process.env.RUNSC_PATH, runtimeArgs: JSON.parse(process.env.RUNSC_ARGS) };
    const runtimes = config.runtimes && typeof config.runtimes === "object" ? config.runtimes : {};
    const all = { runsc: wanted };
    for (const platform of process.env.RUNSC_PLATFORMS.split(" ").filter(Boolean))
      all["runsc-" + platform] = { ...wanted, runtimeArgs: wanted.runtimeArgs.map((a) => a.startsWith("--platform=") ? "--platform=" + platform : a) };
    if (Object.keys(all).every((name) => JSON.stringify(runtimes[name]) === JSON.stringify(all[name]))) { process.stdout.write("same"); process.exit(0); }
    config.runtimes = { ...runtimes, ...all };
    fs.writeFileSync(file + ".threadlab-tmp", JSON.stringify(config, null, 2) + "\n");
    fs.renameSync(file + ".threadlab-tmp", file);
    process.stdout.write("changed");'); then
    log "notice: could not register runsc in $daemon_json (not valid JSON?); sandboxes use runc"
    return 0
  fi
  if [ "$changed" = changed ] || ! runsc_registered; then
    local pid
    pid=$(pidof dockerd 2>/dev/null | awk '{print $1}')
    if [ -z "$pid" ]; then
      log "notice: registered runsc in $daemon_json, but found no dockerd to reload; restart the engine to use gVisor"
      return 0
    fi
    log "registering gVisor with the Docker engine as runtime \"runsc\" ($daemon_json; reload with SIGHUP)"
    kill -HUP "$pid"
    for _ in $(seq 1 20); do runsc_registered && break; sleep 0.25; done
  fi
  if runsc_registered; then
    [ "$changed" = changed ] && log "gVisor (runsc) is registered, with a runtime per platform ($platforms): sandboxes run under the fastest that passes a probe (threadlab doctor says which)"
  else
    log "notice: the engine did not pick up runsc from $daemon_json; sandboxes use runc (restart the engine to retry)"
  fi
  return 0
}

if engine_up; then ensure_runsc; exit 0; fi
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
  if engine_up; then
    log "Docker engine is up"
    ensure_runsc
    exit 0
  fi
  sleep 0.5
done
log "error: the Docker engine did not come up within 30 s; see ${THREADLAB_DOCKERD_LOG:-/var/log/threadlab-dockerd.log}"
exit 1
