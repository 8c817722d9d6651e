# syntax=docker/dockerfile:1
# The Tilecast reference server (examples/reference-server/README.md, "Container").
# Build from the repository root, the npm workspaces the server is made of:
#   docker build -t tilecast .

ARG NODE_VERSION=22

# Build stage: every workspace from the lockfile. `npm ci` runs the root `prepare` script,
# `npm run build`, which builds every package's dist/. Then node_modules is installed again
# with only what the server and the admin command run: the production dependencies of
# examples/reference-server and packages/cli and of the workspaces they use (--ignore-scripts: `prepare` would build again, and none of
# those packages has an install script).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund
RUN npm ci --omit=dev --workspace examples/reference-server --workspace packages/cli --ignore-scripts --no-audit --no-fund

# Runtime stage: those dependencies and the built packages, as the unprivileged `node` user
# of the official image. Listens on every interface (HOST), port 8080 (PORT).
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages ./packages
COPY --from=build /app/examples/reference-server ./examples/reference-server
USER node
EXPOSE 8080
# Liveness through node (the slim image has no curl). Readiness (/readyz) is the load balancer's.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself (graceful shutdown, TILECAST_SHUTDOWN_GRACE_MS);
# it starts no child process, so no init is needed to reap any (`docker run --init` adds one).
CMD ["node", "examples/reference-server/dist/main.js"]
