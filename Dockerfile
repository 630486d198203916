# The Threadlab bot's own image (not the sandbox image user code runs in: that is sandbox/image).
# Multi-stage: compile TypeScript with dev dependencies, ship compiled JS with production ones only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY adapters ./adapters
COPY sandbox ./sandbox
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# Contact sheets caption charts with a system font.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production THREADLAB_DATA_DIR=/var/lib/threadlab THREADLAB_WEB_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# The sandbox image definition travels with the bot so `threadlab sandbox build` works from here.
COPY sandbox/image ./sandbox/image
COPY adapters/web/public ./adapters/web/public
# Non-root. Talking to the Docker socket needs its group: run with --group-add $(stat -c %g /var/run/docker.sock).
RUN mkdir -p /var/lib/threadlab && chown node:node /var/lib/threadlab
USER node
VOLUME /var/lib/threadlab
EXPOSE 8787 3000 9464
ENTRYPOINT ["node", "bin/threadlab.js"]
CMD ["start"]
