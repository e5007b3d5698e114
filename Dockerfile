# A small image with lait for CI jobs: Alpine and the musl build of lait from dist/release/.
#
#   npm run release -- --target linux-x64-musl --target linux-arm64-musl
#   docker build -t lait .
#   docker run --rm -v "$PWD:/work" lait test tests/
#
# The archive is checked against dist/release/SHA256SUMS before it is unpacked. docs/install.md#container
FROM alpine:3.22 AS unpack
# Set by `docker build` (amd64 or arm64); the archive of the matching musl build is used.
ARG TARGETARCH=amd64
COPY dist/release/ /release/
RUN set -eu; \
    case "$TARGETARCH" in amd64) arch=x64 ;; arm64) arch=arm64 ;; *) echo "no lait build for $TARGETARCH" >&2; exit 1 ;; esac; \
    cd /release; \
    archive="$(ls lait-*-linux-"$arch"-musl.tar.gz)"; \
    grep "  $archive\$" SHA256SUMS | sha256sum -c; \
    tar -xzf "$archive"; \
    install -m 755 "${archive%.tar.gz}/lait" /lait

FROM alpine:3.22
# Bun's musl runtime links the C++ runtime; CA certificates are for HTTPS model servers.
RUN apk add --no-cache libstdc++ libgcc ca-certificates
COPY --from=unpack /lait /usr/local/bin/lait
# Runs as an unprivileged user; mount the project at /work.
RUN adduser -D -h /home/lait lait
USER lait
WORKDIR /work
ENTRYPOINT ["lait"]
CMD ["--help"]
