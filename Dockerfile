# toolgate serve as a container: one runner of a cluster on PostgreSQL (or one server on SQLite).
#   docker build -t toolgate .
#   docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#     -e TOOLGATE_SERVE_TOKEN -e TOOLGATE_SERVE_STORAGE=postgres://… -e TOOLGATE_SERVE_RUNNER_SECRET \
#     -e TOOLGATE_SERVE_RUNNER_HOST=<this runner's address> \
#     -e TOOLGATE_SERVE_RUNNER_LISTEN=0.0.0.0 -v /srv/work:/srv/work -p 4700:4700 -p 4701:4701 toolgate
# Sessions' commands run in bubblewrap sandboxes, which need user namespaces: the default seccomp and
# AppArmor profiles of Docker refuse them (see README, Deployment).

FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
# bubblewrap: the sessions' sandbox; ripgrep: Grep; git: sessions' repositories; tini: signals reach node
RUN apt-get update -qq \
  && apt-get install -y -qq --no-install-recommends bubblewrap ripgrep git ca-certificates tini >/dev/null \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --create-home --uid 10001 toolgate \
  && mkdir -p /srv/work /var/lib/toolgate && chown toolgate:toolgate /srv/work /var/lib/toolgate
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER toolgate
ENV TOOLGATE_SERVE_HOST=0.0.0.0 \
    TOOLGATE_SERVE_PORT=4700 \
    TOOLGATE_SERVE_STATE_DIR=/var/lib/toolgate \
    TOOLGATE_SERVE_WORKSPACE_ROOT=/srv/work
EXPOSE 4700 4701
# SIGTERM drains (TOOLGATE_SERVE_DRAIN_MS, 30 s): give `docker stop -t` / terminationGracePeriodSeconds more than that
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.TOOLGATE_SERVE_PORT||4700)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["tini", "--", "node", "/app/dist/toolgate.cjs", "serve"]
