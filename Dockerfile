# One image for every app; the command picks which (dist/apps/<app>/main.js).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Every interface of the container's own network, where a published port reaches it (standalone
# alone would listen on the container's loopback).
ENV HOST=0.0.0.0
# openssl for scripts/certs.sh: docker-compose issues the apps' command certificates with this image.
RUN apt-get update && apt-get install -y --no-install-recommends openssl && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
COPY --from=build /app/scripts/certs.sh ./scripts/certs.sh
COPY package.json ./
USER node
EXPOSE 3000
CMD ["node", "dist/apps/standalone/main.js"]
