# syntax=docker/dockerfile:1
# svc: build with `docker build -t svc .`; compose.yaml runs two instances behind Caddy.

# Stage 1: production dependencies. The `bun` npm package brings the Bun runtime for this
# platform, so the runtime image needs neither Node nor a separate Bun install.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# TypeScript (23 MB) is a peer of @elysiajs/openapi, which npm installs even with --omit=dev;
# only its fromTypes() needs it, which svc does not use (test/ops/lazy-modules.test.ts).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force && rm -rf node_modules/typescript

# Stage 2: the runtime. Sources run as they are (Bun runs TypeScript); no build step.
FROM debian:bookworm-slim AS runtime
RUN groupadd --system --gid 10001 svc \
    && useradd --system --uid 10001 --gid svc --home-dir /app --shell /usr/sbin/nologin svc \
    && mkdir -p /data \
    && chown svc:svc /data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json bunfig.toml ./
COPY src ./src
COPY providers ./providers
COPY plugins ./plugins
COPY seed ./seed
# x-svc-version (YYYYMMDD.HHMMSS): the image has no git history to read it from, so pass
# --build-arg SVC_VERSION=$(TZ=UTC git log -1 --date=format-local:%Y%m%d.%H%M%S --format=%cd);
# left empty, each instance uses its start time.
ARG SVC_VERSION=""
ENV NODE_ENV=production \
    SVC_VERSION=${SVC_VERSION} \
    HOST=0.0.0.0 \
    PORT=8080 \
    SVC_DATA_DIR=/data \
    BUN_CONFIG_MAX_HTTP_REQUESTS=65535
USER svc
EXPOSE 8080
# The embedded database (when DATABASE_URL is unset) lives here.
VOLUME ["/data"]
# Liveness: /health answers while the process serves; orchestrators use /ready for traffic.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["/app/node_modules/.bin/bun", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM starts the graceful shutdown: a drain of shutdownDrainSeconds (15 s; /ready answers 503),
# then open streams get shutdownGraceSeconds (30 s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/node_modules/.bin/bun", "src/index.ts"]
