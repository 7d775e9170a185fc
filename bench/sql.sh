#!/bin/sh
# Builds the in-process point-select benchmark of the SQL layer (sql-point) in
# release mode and runs it. Arguments are passed through, e.g.:
#   bench/sql.sh --quick                  # 10,000 rows
#   bench/sql.sh                          # 1,000,000 rows
#   bench/sql.sh --rows 100000 --out /tmp/results
# Results: a table and a tab-separated breakdown on stdout, progress on
# stderr, and bench/results/sql-point-<UTC time>-{quick,full}.{tsv,env} (or
# under --out).
set -eu
cd "$(dirname "$0")/.."
cargo build --release -p larch-bench --bin sql-point
exec "${CARGO_TARGET_DIR:-target}/release/sql-point" "$@"
