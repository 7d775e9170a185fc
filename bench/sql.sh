#!/bin/sh
# Builds an in-process benchmark of the SQL layer in release mode and runs it:
# sql-point (the point select) by default, sql-range (oltp_read_only's range
# selects) when the first argument is `range`. Other arguments are passed
# through, e.g.:
#   bench/sql.sh --quick                  # point select, 10,000 rows
#   bench/sql.sh                          # point select, 1,000,000 rows
#   bench/sql.sh range --quick            # range selects, 10,000 rows
#   bench/sql.sh --rows 100000 --out /tmp/results
# Results: a table (and for sql-point a tab-separated breakdown) on stdout,
# progress on stderr, and bench/results/sql-{point,range}-<UTC time>-{quick,full}.{tsv,env}
# (or under --out).
set -eu
cd "$(dirname "$0")/.."
BIN=sql-point
if [ "${1:-}" = range ]; then
    BIN=sql-range
    shift
fi
cargo build --release -p larch-bench --bin "$BIN"
exec "${CARGO_TARGET_DIR:-target}/release/$BIN" "$@"
