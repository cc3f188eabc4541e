# The in-cluster forwarder's image: Node 24 and the bundle of `lineup forward` — one file, and
# beside it the chunks it imports only on demand (lib/hosts/forwarderProcess.ts, bundled and
# minified by infra/k8s/forwarderBundle.ts like the Lambda functions), run by infra/manifests/forwarder.yaml. Build it from the repository root and
# push it where the cluster can pull it (docs/deploy.md, "Install the forwarder"):
#
#   docker build -f infra/forwarder.Dockerfile -t <account>.dkr.ecr.<region>.amazonaws.com/lineup:<version> .
#
# The bundle, not the TypeScript sources: Node then strips no types at start and loads none of
# the CLI the forwarder does not use (bench/forwarderFootprint.ts measures this same bundle).

# Build stage: the locked dependencies (esbuild among the dev ones; its platform binary is an
# optional dependency, so optional ones stay in), then the bundle.
FROM public.ecr.aws/docker/library/node:24-slim AS bundle
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY lib ./lib
COPY infra/k8s/forwarderBundle.ts ./infra/k8s/forwarderBundle.ts
RUN node infra/k8s/forwarderBundle.ts --outfile /src/forwarder/lineup-forward.mjs

# Runtime: no node_modules, no npm use; the path is FORWARDER_IMAGE_ENTRY (infra/k8s/names.ts).
FROM public.ecr.aws/docker/library/node:24-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=bundle /src/forwarder/lineup-forward.mjs /app/lineup-forward.mjs
COPY --from=bundle /src/forwarder/chunks/ /app/chunks/

# The image's `node` user; the Deployment runs as 1000:1000 with a read-only root filesystem.
USER 1000:1000
CMD ["node", "/app/lineup-forward.mjs"]
