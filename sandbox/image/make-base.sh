#!/usr/bin/env bash
# Creates a minimal Debian trixie base image without a container registry:
# debootstrap from the Debian mirror apt already uses, then `docker import`.
# Usage: make-base.sh TAG
set -euo pipefail
tag="${1:?usage: make-base.sh TAG}"

if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "base image $tag already present"
  exit 0
fi

mirror="${THREADLAB_DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  # First Debian URI configured for apt (deb822 .sources files, then the classic list).
  mirror=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)
  [ -n "$mirror" ] || mirror=$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)
fi
if [ -z "$mirror" ]; then
  echo "error: no Debian mirror found in apt's sources; set THREADLAB_DEBIAN_MIRROR" >&2
  exit 1
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing debootstrap (apt-get install debootstrap)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
  else
    echo "error: debootstrap is missing; install it (apt-get install debootstrap) or make debian:trixie-slim available" >&2
    exit 1
  fi
fi

dir=$(mktemp -d /var/tmp/threadlab-base.XXXXXX)
trap 'rm -rf "$dir"' EXIT
echo "debootstrap trixie (minbase) from $mirror into $dir"
debootstrap --variant=minbase trixie "$dir" "$mirror" 2>&1 | grep -E '^I: (Retrieving Release|Validating Packages|Installing core|Configuring required|Base system installed)' || true
if [ ! -x "$dir/usr/bin/apt-get" ]; then
  echo "error: debootstrap did not produce a usable system (see above)" >&2
  exit 1
fi
rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
echo "importing as $tag"
tar -C "$dir" -c . | docker import --change 'CMD ["/bin/bash"]' - "$tag" >/dev/null
echo "base image $tag ready"
