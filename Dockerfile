# syntax=docker/dockerfile:1
# Quire: the API (default command) or a worker (`quire worker`) in one image.
#   docker build -t quire .
#   docker run -p 8080:8080 -v quire-data:/data quire
# The base image is a build argument: where no registry is reachable, build one from the Debian packages
# (e.g. debootstrap bookworm + Node 20, imported with `podman import`) and pass it as NODE_IMAGE.
ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: install every dependency, compile TypeScript and the studio, then drop the dev dependencies
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# native modules (better-sqlite3) build from source when no prebuilt binary can be fetched
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY . .
# install scripts run only for the packages that need theirs (package.json "allowScripts")
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 esbuild \
 && npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf test bench .ci

# ---- runtime: Node, the system binaries (tesseract, LibreOffice, Chromium, fonts) and the built tree
FROM ${NODE_IMAGE} AS runtime
COPY scripts/install-system-deps.sh /tmp/install-system-deps.sh
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates curl tini \
 && bash /tmp/install-system-deps.sh \
 && rm -rf /var/lib/apt/lists/* /tmp/install-system-deps.sh \
 && groupadd --system quire && useradd --system --gid quire --home-dir /data --shell /usr/sbin/nologin quire \
 && mkdir -p /data && chown quire:quire /data && chmod 0700 /data
WORKDIR /app
COPY --from=build --chown=root:root /app /app
RUN ln -s /app/server/dist/bin.js /usr/local/bin/quire && chmod 0755 /app/server/dist/bin.js
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    QUIRE_DATA_DIR=/data \
    QUIRE_CHROMIUM_PATH=/usr/bin/chromium
# everything the service keeps: SQLite database, files, parsed content, vectors.db, secrets.key, signing secret
VOLUME ["/data"]
USER quire
EXPOSE 8080
# /readyz: 200 once the database and the queue are connected (503 while connecting or after a failed connect)
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${PORT}/readyz" > /dev/null || exit 1
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/server/dist/bin.js"]
CMD ["serve"]
