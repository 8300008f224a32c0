# cudb serve in a container: one static binary (CGO_ENABLED=0) on an empty
# image. `make image` cross-compiles the binary first; the build reads no
# network. The database is embedded in the binary, so nothing else is
# needed at run time.
#
# COPY --chmod sets the mode: the release workflow's artifacts do not keep
# it, and a binary copied as 0644 fails with exec: permission denied
# (TestImageRootFS in cmd/cudb checks this without a docker engine).
# --chmod needs BuildKit, docker build's builder since Docker 23.
#
#   make image && docker run --rm -p 8080:8080 cudb:0.0.0.dev0
#   curl 'http://127.0.0.1:8080/v1/resolve?req=torch==2.1'

# The serve image: the default (see the last line) and the first stage, so
# `docker build --target serve` (make image) builds nothing else and pulls
# no busybox for the fleet stage.
FROM scratch AS serve
ARG TARGETARCH=amd64
COPY --chmod=0755 dist/cudb-linux-${TARGETARCH} /cudb
# No account database on scratch: a numeric unprivileged user.
USER 65534:65534
EXPOSE 8080
ENTRYPOINT ["/cudb"]
CMD ["serve", "--addr", "0.0.0.0:8080"]

# The fleet image (--target fleet): the same binary on busybox, for the
# shell loop of the Kubernetes DaemonSet in docs/fleet/daemonset.yaml.
FROM busybox:1.37-musl AS fleet
ARG TARGETARCH=amd64
COPY --chmod=0755 dist/cudb-linux-${TARGETARCH} /usr/local/bin/cudb
ENTRYPOINT []
CMD ["cudb", "verify", "--format", "prometheus"]

# The default target: the serve image.
FROM serve
