#!/bin/sh
# Builds the B+tree benchmarks in release mode and runs them.
# Arguments are passed through, e.g.:
#   bench/btree.sh --quick
#   bench/btree.sh --rows 500000 --page-size-kib 4
#   bench/btree.sh --only lookup,scan --dir /mnt/nvme/scratch
# Results: a table on stdout, progress on stderr, and
# bench/results/btree-<UTC timestamp>-{quick,full}.{tsv,env} (or under --out).
set -eu
cd "$(dirname "$0")/.."
cargo build --release -p larch-bench --bin btree
exec "${CARGO_TARGET_DIR:-target}/release/btree" "$@"
