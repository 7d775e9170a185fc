#!/bin/sh
# Builds the storage-core micro-benchmarks in release mode and runs them.
# Arguments are passed through, e.g.:
#   bench/storage-core.sh --quick
#   bench/storage-core.sh --out /tmp/results --dir /mnt/nvme/scratch
#   bench/storage-core.sh --only fix,crc
# Results: a table on stdout, progress on stderr, and
# bench/results/storage-core-{quick,full}.{tsv,env} (or under --out).
set -eu
cd "$(dirname "$0")/.."
cargo build --release -p larch-bench --bin storage-core
exec "${CARGO_TARGET_DIR:-target}/release/storage-core" "$@"
