#!/usr/bin/env bash
# Builds a Node 20 / Debian bookworm base image from Debian packages, for machines that reach a Debian mirror
# but no image registry: debootstrap (minbase) + this machine's Node 20 (/usr/bin/node and npm), imported
# with `podman import`. Then: podman build --build-arg NODE_IMAGE=localhost/quire-node:20-bookworm -t quire .
#   bash scripts/container-base.sh [image name] [mirror]
set -euo pipefail
IMAGE=${1:-localhost/quire-node:20-bookworm}
MIRROR=${2:-http://deb.debian.org/debian}
ENGINE=${CONTAINER_ENGINE:-podman}
node -e 'process.exit(+process.versions.node.split(".")[0] === 20 ? 0 : 1)' || { echo "needs Node 20 on this machine" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$MIRROR"
cp "$(command -v node)" "$root/usr/bin/node"
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")   # …/lib/node_modules/npm
mkdir -p "$root/usr/lib/node_modules"
cp -a "$npm_dir" "$root/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/bin/npx"
# Node's headers, so that native modules (better-sqlite3) build without downloading them (npm_config_nodedir)
node_prefix=$(dirname "$(dirname "$(command -v node)")")
[ -d "$node_prefix/include/node" ] || { echo "needs Node's headers in $node_prefix/include/node" >&2; exit 1; }
mkdir -p "$root/usr/include"
cp -a "$node_prefix/include/node" "$root/usr/include/node"
# the certificate authorities this machine trusts beyond Debian's (a TLS-inspecting proxy's): npm and apt in
# the build then reach what this machine reaches (update-ca-certificates keeps them when the bundle is rebuilt)
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  extra=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
else
  extra=()
fi
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | "$ENGINE" import "${extra[@]}" --change 'ENV npm_config_nodedir=/usr' --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$IMAGE"
echo "base image: $IMAGE"
