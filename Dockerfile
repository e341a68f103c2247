# syntax=docker/dockerfile:1
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
RUN useradd --system --uid 10001 --create-home leadsmith && mkdir -p /data && chown leadsmith /data
COPY --from=build --chown=leadsmith /app/node_modules ./node_modules
COPY --from=build --chown=leadsmith /app/build ./build
COPY --chown=leadsmith package.json server.ts worker.ts ./
COPY --chown=leadsmith app ./app
COPY --chown=leadsmith db ./db
COPY --chown=leadsmith public ./public
COPY --chown=leadsmith scripts ./scripts
USER leadsmith
VOLUME /data
EXPOSE 3000
# Alive: /healthz (a process that stops answering is restarted). Load balancers should route
# by /readyz (database and job queue ready). A worker container (`node worker.ts`) serves no
# HTTP: turn this check off for it (compose.yaml does). See docs/deploy.md.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself as PID 1 receives SIGTERM and drains (npm would not pass it on).
# Web only: WORKERS=0; workers: CMD ["node", "worker.ts"].
CMD ["node", "server.ts"]
