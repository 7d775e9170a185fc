#!/bin/sh
# Builds the transaction-system micro-benchmarks in release mode and runs them.
# Arguments are passed through, e.g.:
#   bench/txn.sh --quick
#   bench/txn.sh --out /tmp/results
#   bench/txn.sh --only snapshot,commit
# Results: a table on stdout, progress on stderr, and
# bench/results/txn-{quick,full}.{tsv,env} (or under --out).
set -eu
cd "$(dirname "$0")/.."
cargo build --release -p larch-bench --bin txn
exec "${CARGO_TARGET_DIR:-target}/release/txn" "$@"
