# shiplog: one image, every role; the role is chosen by the command.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
EXPOSE 3000
# The heap settings `npm start` gives the server (see package.json and the README).
ENTRYPOINT ["node", "--max-semi-space-size=32", "--min-semi-space-size=32", "--v8-pool-size=2", "bin/shiplog.js"]
CMD ["serve"]
