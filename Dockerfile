# Kairos image: one image for every role, chosen at run time with ROLES (api, scheduler, worker).
# Stage 1 builds dist/ (server and dashboard) with the dev dependencies; stage 2 installs the
# production dependencies only; the final stage copies both (owned by root, so read-only to the
# process) and runs as the unprivileged `node` user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY ui/package.json ui/package-lock.json ui/
RUN npm ci --no-audit --no-fund --loglevel=error \
 && npm --prefix ui ci --no-audit --no-fund --loglevel=error
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error && npm cache clean --force

FROM node:20-bookworm-slim
# HOST: every interface, whatever KAIROS_MODE says (development mode would listen on loopback only).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 METRICS_PORT=9464
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER node
EXPOSE 4000 9464
# Every process serves /metrics on METRICS_PORT (never on PORT); the api role also answers /healthz on PORT.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const e=process.env,a=(e.ROLES||'api').includes('api');fetch(a?`http://127.0.0.1:${e.PORT||4000}/healthz`:`http://127.0.0.1:${e.METRICS_PORT||9464}/metrics`).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
