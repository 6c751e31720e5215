#!/usr/bin/env bash
# Builds the container image (Dockerfile) with docker or podman, so that a broken Dockerfile fails CI.
#   bash scripts/build-image.sh [tag]
# When the default base image (node:20-bookworm-slim) cannot be pulled (no registry reachable), a base is
# made from Debian packages with scripts/container-base.sh and passed as NODE_IMAGE. Podman builds with
# --isolation=chroot: it needs no OCI runtime (crun refuses this machine's hybrid cgroups).
set -euo pipefail
cd "$(dirname "$0")/.."
TAG=${1:-localhost/quire:ci}
if command -v podman >/dev/null 2>&1; then
  ENGINE=podman; BUILD=(podman build --format docker --isolation=chroot --network=host)  # docker format keeps HEALTHCHECK
elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  ENGINE=docker; BUILD=(docker build)
else
  echo "build-image: neither podman nor a docker daemon is available" >&2; exit 1
fi
base=()
if ! "$ENGINE" image inspect node:20-bookworm-slim >/dev/null 2>&1 && ! timeout 120 "$ENGINE" pull -q docker.io/library/node:20-bookworm-slim >/dev/null 2>&1; then
  local_base=localhost/quire-node:20-bookworm
  "$ENGINE" image inspect "$local_base" >/dev/null 2>&1 || CONTAINER_ENGINE=$ENGINE bash scripts/container-base.sh "$local_base"
  base=(--build-arg "NODE_IMAGE=$local_base")
fi
"${BUILD[@]}" "${base[@]}" -t "$TAG" .
echo "image: $TAG"
