#!/bin/sh
# Builds the MVCC benchmarks in release mode and runs them.
# Arguments are passed through, e.g.:
#   bench/mvcc.sh --quick
#   bench/mvcc.sh --only report --windows 1
#   bench/mvcc.sh --rows 300000 --dir /mnt/nvme/scratch --out /tmp/results
# Honours CARGO_TARGET_DIR. Results: a table on stdout, progress on stderr,
# and bench/results/mvcc-<UTC timestamp>.{tsv,env} (or under --out).
set -eu
cd "$(dirname "$0")/.."
cargo build --release -p larch-bench --bin mvcc
exec "${CARGO_TARGET_DIR:-target}/release/mvcc" "$@"
