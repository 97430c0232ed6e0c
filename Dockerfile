# blockgate's image. Build: docker build -t blockgate .   Run: docker run -p 8545:8545 blockgate
# Every build and run step is a subcommand of scripts/image.sh, which test/build/image.test.ts runs
# the same way in a temporary folder. See docs/operators/container.md.

# build: dev dependencies, dist/ built at npm pack, then the package installed as production runs it.
FROM node:20-bookworm AS build
WORKDIR /build
# The dependencies first, so a change to the sources reuses this layer.
COPY package.json package-lock.json ./
COPY scripts/image.sh scripts/image.sh
RUN scripts/image.sh deps
COPY tsconfig.json LICENSE README.md ./
COPY bin/ bin/
COPY scripts/ scripts/
COPY src/ src/
COPY schema/ schema/
COPY data/chain/ data/chain/
COPY examples/ examples/
RUN scripts/image.sh pack out/pkg
RUN scripts/image.sh install out/pkg out/app

# runtime: the installed package and Node, no compiler, no sources, no npm step, not root.
FROM node:20-bookworm-slim AS runtime
COPY --from=build /build/out/app /app
COPY scripts/image.sh /usr/local/bin/blockgate-image
# NODE_OPTIONS: a young generation twice Node's default, as `npm start` runs the gateway (decision
# 0071); V8 grows it only as a process allocates, so the one-shot commands are unchanged.
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=32 \
    PATH=/app/bin:$PATH \
    BLOCKGATE_CONFIG=/app/examples/container.yaml
# The node user's home: PGlite's folder when DATABASE_URL is unset.
WORKDIR /home/node
USER node
# HTTP (every route, /healthz, /readyz) and Electrum over TLS (when electrum.tls is configured).
EXPOSE 8545 50002
# The gateway drains on SIGTERM: give it more than server.drainTimeoutMs before a kill.
STOPSIGNAL SIGTERM
# Liveness only (/readyz is the load balancer's). Six retries cover a slow start in place of
# --start-period, which dockerfilelint 1.8 misreads as an unknown option.
HEALTHCHECK --interval=10s --timeout=5s --retries=6 \
  CMD ["blockgate-image", "health", "8545"]
ENTRYPOINT ["blockgate"]
CMD ["start"]
