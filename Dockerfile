# shiplog: one image, every role; the role is chosen by the command.
# Build stage: native modules (better-sqlite3, lz4) are compiled here, with the tools
# they need, and the TypeScript sources become JavaScript in dist/ (npm run build).
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY cli ./cli
COPY commands ./commands
COPY command-api ./command-api
COPY jobs ./jobs
COPY projectors ./projectors
COPY query-api ./query-api
COPY console ./console
COPY reactions ./reactions
COPY server ./server
COPY shared ./shared
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: JavaScript only (no TypeScript compiled at start), no compilers,
# a non-root user, a health check.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The heap settings `npm start` gives the server (see package.json and docs/performance.md).
ENTRYPOINT ["node", "--max-semi-space-size=32", "--min-semi-space-size=32", "--single-threaded-gc", "--no-allocation-site-pretenuring", "--initial-old-space-size=256", "bin/shiplog.js"]
CMD ["serve"]
