# syntax=docker/dockerfile:1
# The Tilecast reference server (examples/reference-server/README.md, "Container").
# Build from the repository root, the npm workspaces the server is made of:
#   docker build -t tilecast .

# Pinned to an exact release: a rebuild gets the same Node. To pin the bytes too, add the
# image's digest (`node:22.22.0-bookworm-slim@sha256:…`, from `docker buildx imagetools
# inspect node:22.22.0-bookworm-slim`) to both FROM lines; the README says how.
ARG NODE_VERSION=22.22.0

# Manifests: the lockfile and every workspace's package.json, all that `npm ci` reads.
# The install layers built on this stage are reused until one of these files changes: an
# edit to a source file never reinstalls anything.
FROM node:${NODE_VERSION}-bookworm-slim AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/storage-memory/package.json packages/storage-memory/
COPY packages/storage-postgres/package.json packages/storage-postgres/
COPY packages/storage-conformance/package.json packages/storage-conformance/
COPY packages/transport-apns/package.json packages/transport-apns/
COPY packages/transport-fcm/package.json packages/transport-fcm/
COPY packages/adapter-node-http/package.json packages/adapter-node-http/
COPY packages/adapter-express/package.json packages/adapter-express/
COPY packages/adapter-fastify/package.json packages/adapter-fastify/
COPY packages/adapter-fetch/package.json packages/adapter-fetch/
COPY packages/metrics/package.json packages/metrics/
COPY packages/client/package.json packages/client/
COPY packages/simulator/package.json packages/simulator/
COPY packages/cli/package.json packages/cli/
COPY examples/reference-server/package.json examples/reference-server/
COPY examples/webhook-receiver/package.json examples/webhook-receiver/
COPY examples/smart-home/package.json examples/smart-home/

# Build stage: every dependency (the build tools included), then the sources of the
# workspaces the image runs, built in dependency order. --ignore-scripts: the root
# `prepare` script would build before the sources are here (esbuild, the only dependency
# with an install script, finds its binary without it).
FROM manifests AS build
ARG WORKSPACES="packages/core packages/storage-memory packages/storage-postgres packages/transport-apns packages/transport-fcm packages/adapter-node-http packages/metrics packages/client packages/simulator packages/cli examples/reference-server"
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsup.shared.ts ./
COPY packages/core packages/core
COPY packages/storage-memory packages/storage-memory
COPY packages/storage-postgres packages/storage-postgres
COPY packages/transport-apns packages/transport-apns
COPY packages/transport-fcm packages/transport-fcm
COPY packages/adapter-node-http packages/adapter-node-http
COPY packages/metrics packages/metrics
COPY packages/client packages/client
COPY packages/simulator packages/simulator
COPY packages/cli packages/cli
COPY examples/reference-server examples/reference-server
RUN for workspace in $WORKSPACES; do npm run build --workspace "$workspace" || exit 1; done
# The runtime tree: each of those workspaces' package.json and what it publishes (its
# package.json `files`: dist/, the admin command's bin/, the simulator's page/), no sources.
RUN node -e 'const { cpSync } = require("node:fs"); for (const w of process.argv.slice(1)) { const { files = ["dist"] } = require(`./${w}/package.json`); for (const f of ["package.json", ...files.filter((f) => f !== "README.md")]) cpSync(`${w}/${f}`, `/runtime/${w}/${f}`, { recursive: true }); }' $WORKSPACES

# Production dependencies: those of the server and the admin command and of the workspaces
# they use, from the lockfile. --legacy-peer-deps leaves out TypeScript (23 MB), which the
# lockfile keeps only as an optional peer of valibot: nothing runs it at run time.
FROM manifests AS production-dependencies
RUN npm ci --omit=dev --legacy-peer-deps --workspace examples/reference-server --workspace packages/cli --ignore-scripts --no-audit --no-fund

# Runtime stage: those dependencies and the built workspaces only, as the unprivileged
# `node` user of the official image (the files stay root's: read-only to the server).
# Listens on every interface (HOST), port 8080 (PORT); no demo account (TILECAST_DEMO).
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 TILECAST_DEMO=0
WORKDIR /app
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /runtime ./
USER node
EXPOSE 8080
# Liveness through node (the slim image has no curl). Readiness (/readyz) is the load balancer's.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself (graceful shutdown, TILECAST_SHUTDOWN_GRACE_MS);
# it starts no child process, so no init is needed to reap any (`docker run --init` adds one).
CMD ["node", "examples/reference-server/dist/main.js"]
