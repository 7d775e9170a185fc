#!/bin/bash
# instr_cost.sh: the instructions larchd executes per transaction of one
# sysbench workload, counted by callgrind: a figure that holds on a busy
# machine, where CPU time per transaction (txn_cost.sh) moves by 30% and more
# with the load of other processes.
#
#   bench/compare/instr_cost.sh SERVER_BINARY WORKLOAD EVENTS
#   e.g. bench/compare/instr_cost.sh target/release/larchd oltp_point_select 2000
#
# Starts larchd under `valgrind --tool=callgrind --instr-atstart=no` on a
# fresh data directory under $TMPDIR (or /tmp), prepares 2,000 rows, runs
# EVENTS / 5 untimed transactions (one thread, prepared statements as
# sysbench's --db-ps-mode=auto makes them), switches instrumentation on, runs
# EVENTS transactions, dumps, and prints the instructions of every server
# thread over the run and per transaction, and the heap allocations
# (alloc_calls.py: calls into the allocator) over the run and per
# transaction. The server runs about 50 times slower under callgrind: keep
# EVENTS small (2,000 point selects, 200 read-only transactions take about a
# minute each). Larch only (no MariaDB
# data directory is made). Needs valgrind, sysbench and the mariadb client.
set -euo pipefail
[ $# -eq 3 ] || { sed -n 2,8p "$0" >&2; exit 2; }
bin=$1 workload=$2 events=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/instr-cost-XXXXXX")
port=$((20000 + RANDOM % 20000))
opts=(--no-defaults --datadir="$dir/data" --socket="$dir/s.sock" --pid-file="$dir/s.pid"
      --log-error="$dir/error.log" --port="$port" --bind-address=127.0.0.1
      --innodb-buffer-pool-size=64M --innodb-log-file-size=64M --skip-log-bin --skip-name-resolve)
[ "$(id -u)" -eq 0 ] && opts+=(--user=root)
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$dir/callgrind.out" \
    "$bin" "${opts[@]}" >"$dir/stdout.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
sql() { mariadb -h127.0.0.1 -P"$port" -uroot -N -B -e "$1"; }
for _ in $(seq 600); do sql 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.5; done
sql 'CREATE DATABASE sbtest'
sb=(sysbench "$workload" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port"
    --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=2000 --db-ps-mode=auto
    --threads=1 --time=0)
"${sb[@]}" prepare >/dev/null
"${sb[@]}" --events=$((events / 5)) run >/dev/null
callgrind_control -i on "$pid" >/dev/null
"${sb[@]}" --events="$events" run >/dev/null
callgrind_control -d "$pid" >/dev/null
callgrind_control -i off "$pid" >/dev/null
sleep 2
ir=$(cat "$dir"/callgrind.out* | awk '/^totals:/ {s += $2} END {print s + 0}')
allocs=$(python3 "$(dirname "$0")/alloc_calls.py" "$dir"/callgrind.out*)
echo "$(basename "$bin") $workload events=$events instructions=$ir per_txn=$((ir / events))" \
     "allocations=$allocs allocs_per_txn=$(awk -v a="$allocs" -v e="$events" 'BEGIN {printf "%.1f", a / e}')"
