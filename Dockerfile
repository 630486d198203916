# The Threadlab bot's own image (not the sandbox image user code runs in: that is sandbox/image).
# Multi-stage: compile TypeScript with dev dependencies, ship compiled JS with production ones only.
# NODE_IMAGE is any Debian-based Node >= 20.19 image.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-assets.mjs ./scripts/
COPY app ./app
COPY src ./src
COPY cli ./cli
COPY adapters ./adapters
COPY sandbox ./sandbox
RUN npm run build && npm prune --omit=dev

FROM ${NODE_IMAGE}
# Contact sheets caption charts with a system font.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/* \
 && (id node >/dev/null 2>&1 || useradd --uid 1000 --create-home --shell /usr/sbin/nologin node) \
 && mkdir -p /var/lib/threadlab && chown node:node /var/lib/threadlab
ENV NODE_ENV=production THREADLAB_DATA_DIR=/var/lib/threadlab THREADLAB_WEB_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# Non-root. Talking to the Docker socket needs its group: run with --group-add $(stat -c %g /var/run/docker.sock).
USER node
VOLUME /var/lib/threadlab
EXPOSE 8787 3000 9464
# The soft open-file limit is raised to the hard one first (Node cannot); the web chat derives its
# connection caps from what it gets and logs them.
ENTRYPOINT ["sh", "bin/raise-open-files.sh", "node", "bin/threadlab.js"]
CMD ["start"]
