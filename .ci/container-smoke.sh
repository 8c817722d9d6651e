#!/usr/bin/env bash
# The reference server's image (Dockerfile at the root): where a Docker daemon runs, build it
# and check it: it starts, GET /healthz answers 200, Docker's HEALTHCHECK reports it healthy,
# its stdout holds only JSON log lines and no token, and `docker stop` (SIGTERM) ends it with
# exit code 0. Where none runs, say so and succeed:
# the image is then not built (the Dockerfile is still checked by test/container.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! docker info >/dev/null 2>&1; then
  echo "container: no container runtime here (docker daemon unavailable): image not built"
  exit 0
fi

image="tilecast-ci:$$"
name="tilecast-ci-$$"
build_log=""
cleanup() {
  [ -n "$build_log" ] && rm -f "$build_log"
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker rmi -f "$image" >/dev/null 2>&1 || true
}
trap cleanup EXIT
fail() {
  echo "container: $1" >&2
  docker logs "$name" 2>&1 | tail -n 40 >&2 || true
  exit 1
}

build_log=$(mktemp)
if ! docker build -t "$image" . >"$build_log" 2>&1; then
  tail -n 40 "$build_log" >&2
  fail "docker build failed"
fi
docker run -d --name "$name" -p 127.0.0.1::8080 "$image" >/dev/null || fail "docker run failed"
port=$(docker port "$name" 8080/tcp | head -n 1 | sed 's/.*://')

status=""
for _ in $(seq 1 30); do
  status=$(node -e "fetch('http://127.0.0.1:$port/healthz').then((r) => console.log(r.status), () => console.log('none'))")
  [ "$status" = 200 ] && break
  sleep 1
done
[ "$status" = 200 ] || fail "GET /healthz answered ${status:-nothing} within 30 s"

health=""
for _ in $(seq 1 60); do
  health=$(docker inspect --format '{{.State.Health.Status}}' "$name")
  [ "$health" = healthy ] && break
  sleep 1
done
[ "$health" = healthy ] || fail "Docker reports the container $health, not healthy, within 60 s"

# stdout holds only JSON log lines, and no token (the demo account is off in the image).
docker logs "$name" 2>/dev/null | node -e '
  const lines = require("node:fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
  for (const line of lines) { try { JSON.parse(line); } catch { console.error(`not JSON: ${line}`); process.exit(1); } }
  if (lines.some((line) => /\b(tok|dev)_[A-Za-z0-9_-]{8,}/.test(line))) { console.error("a token on stdout"); process.exit(1); }
' || fail "stdout is not JSON log lines only"

docker stop --time 15 "$name" >/dev/null
code=$(docker inspect --format '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "docker stop: exit code $code, not 0 (graceful shutdown)"
echo "container: image built; /healthz 200, healthy, JSON logs, stopped by SIGTERM with exit code 0"
