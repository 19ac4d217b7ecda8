# toolgate serve as a container: one runner of a cluster on PostgreSQL (or one server on SQLite).
#   docker build -t toolgate .
#   docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#     --security-opt systempaths=unconfined \
#     -e TOOLGATE_SERVE_TOKEN -e TOOLGATE_SERVE_STORAGE=postgres://… -e TOOLGATE_SERVE_RUNNER_SECRET \
#     -e TOOLGATE_SERVE_RUNNER_HOST=<this runner's address> \
#     -e TOOLGATE_SERVE_RUNNER_LISTEN=0.0.0.0 -v /srv/work:/srv/work -p 4700:4700 -p 4701:4701 \
#     toolgate --runner
# (arguments after the image name go to `toolgate serve`: without --runner it is one server)
# Sessions' commands run in bubblewrap sandboxes, which need user namespaces and a /proc of their
# own: Docker's default seccomp and AppArmor profiles refuse the first, its masked /proc paths the
# second (see README, Deployment).

FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# serve's database drivers (better-sqlite3, pg) are optional peers, kept among the devDependencies
# for the tests: make them production dependencies here so that the prune keeps them
RUN npm run build \
  && node -e 'const fs = require("fs"), p = JSON.parse(fs.readFileSync("package.json", "utf8")); \
       for (const d of ["better-sqlite3", "pg"]) { p.dependencies[d] = p.devDependencies[d]; delete p.devDependencies[d] } \
       fs.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n")' \
  && npm prune --omit=dev --no-audit --no-fund \
  && node -e 'require("better-sqlite3")(":memory:").close();require("pg")'

FROM node:22-bookworm-slim
# bubblewrap: the sessions' sandbox; ripgrep: Grep; git: sessions' repositories; tini: signals reach node
RUN apt-get update -qq \
  && apt-get install -y -qq --no-install-recommends bubblewrap ripgrep git ca-certificates tini >/dev/null \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --create-home --uid 10001 toolgate \
  && mkdir -p /srv/work /var/lib/toolgate && chown toolgate:toolgate /srv/work /var/lib/toolgate
WORKDIR /app
COPY package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER toolgate
# TOOLGATE_PROCESS_LEASH=off: a bubblewrap started in the leash's PID namespace reads its sandbox's
# /proc/<pid>/ns through the container's /proc, where that pid does not exist ("bwrap: open
# /proc/3/ns/ns failed"), so every Bash call would fail; the container's own PID namespace (tini as
# PID 1) already stops every process when node exits
ENV TOOLGATE_SERVE_HOST=0.0.0.0 \
    TOOLGATE_SERVE_PORT=4700 \
    TOOLGATE_SERVE_STATE_DIR=/var/lib/toolgate \
    TOOLGATE_SERVE_WORKSPACE_ROOT=/srv/work \
    TOOLGATE_PROCESS_LEASH=off
EXPOSE 4700 4701
# SIGTERM drains (TOOLGATE_SERVE_DRAIN_MS, 30 s): give `docker stop -t` / terminationGracePeriodSeconds more than that
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.TOOLGATE_SERVE_PORT||4700)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["tini", "--", "node", "/app/dist/toolgate.cjs", "serve"]
