#!/bin/bash
# txn_cost.sh: the server's CPU time and log syncs per transaction of one
# sysbench workload, on one server started fresh (Larch or MariaDB).
#
#   bench/compare/txn_cost.sh larch|mariadb SERVER_BINARY WORKLOAD THREADS SECONDS
#   e.g. bench/compare/txn_cost.sh larch target/release/larchd oltp_update_index 16 10
#        bench/compare/txn_cost.sh mariadb /usr/sbin/mariadbd oltp_update_index 16 10
#
# Starts the server on a fresh data directory under $TMPDIR (or /tmp) with the
# settings bench/compare/run.sh gives both servers in quick mode (256M buffer
# pool and redo log, flush at every commit, doublewrite, O_DIRECT), prepares
# 10,000 rows, runs 5 s of untimed warm-up, then the timed run under
# `perf stat -e task-clock -p PID` (every thread of the server), and prints:
# tps, transactions, the server's CPU milliseconds and microseconds per
# transaction and per query (sysbench's count of statements, BEGIN/COMMIT
# included), the server's peak RSS (VmHWM, MiB), and the deltas of the global status counters that count log
# syncs (Innodb_os_log_fsyncs for Larch; MariaDB counts its log syncs in
# Innodb_data_fsyncs, as no data file is synced during such a short run).
# Needs sysbench, perf and the mariadb client. The server is stopped and its
# directory removed at the end.
set -euo pipefail
[ $# -eq 5 ] || { sed -n 2,8p "$0" >&2; exit 2; }
engine=$1 bin=$2 workload=$3 threads=$4 seconds=$5
dir=$(mktemp -d "${TMPDIR:-/tmp}/txn-cost-XXXXXX")
port=$((20000 + RANDOM % 20000))
opts=(--no-defaults --datadir="$dir/data" --socket="$dir/s.sock" --pid-file="$dir/s.pid"
      --log-error="$dir/error.log" --port="$port" --bind-address=127.0.0.1
      --innodb-buffer-pool-size=256M --innodb-log-file-size=256M
      --innodb-flush-log-at-trx-commit=1 --innodb-doublewrite=1 --innodb-flush-method=O_DIRECT
      --max-connections=2000 --skip-log-bin --skip-name-resolve)
[ "$(id -u)" -eq 0 ] && opts+=(--user=root)
if [ "$engine" = mariadb ]; then
    root_user=()
    [ "$(id -u)" -eq 0 ] && root_user=(--user=root)
    mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal \
        --skip-test-db "${root_user[@]}" >/dev/null 2>&1
    opts+=(--max-prepared-stmt-count=1048576 --innodb-buffer-pool-dump-at-shutdown=0
           --innodb-buffer-pool-load-at-startup=0)
fi
"$bin" "${opts[@]}" >"$dir/stdout.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
sql() { mariadb -h127.0.0.1 -P"$port" -uroot -N -B -e "$1"; }
for _ in $(seq 240); do sql 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.5; done
sql 'CREATE DATABASE sbtest'
sb=(sysbench "$workload" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port"
    --mysql-user=root --mysql-db=sbtest --tables=1 --table-size=10000)
"${sb[@]}" prepare >/dev/null
"${sb[@]}" --threads="$threads" --time=5 run >/dev/null
sql 'SHOW GLOBAL STATUS' >"$dir/status.before"
perf stat -e task-clock -p "$pid" -o "$dir/perf.txt" &
perf_pid=$!
"${sb[@]}" --threads="$threads" --time="$seconds" --report-interval=0 run >"$dir/sysbench.txt"
kill -INT "$perf_pid"
wait "$perf_pid" || true
sql 'SHOW GLOBAL STATUS' >"$dir/status.after"
tx=$(awk '/transactions:/ {print $2}' "$dir/sysbench.txt")
queries=$(awk '/ queries:/ {print $2}' "$dir/sysbench.txt")
peak_rss_mib=$(awk '/VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$pid/status")
tps=$(sed -n 's/.*transactions:.*(\(.*\) per sec.*/\1/p' "$dir/sysbench.txt")
cpu_ms=$(awk '/task-clock/ {gsub(",", "", $1); print $1}' "$dir/perf.txt")
delta() { awk -v v="$1" 'NR == FNR {if ($1 == v) a = $2; next} $1 == v {print $2 - a}' \
    "$dir/status.before" "$dir/status.after"; }
syncs=$([ "$engine" = mariadb ] && delta Innodb_data_fsyncs || delta Innodb_os_log_fsyncs)
awk -v e="$engine" -v w="$workload" -v t="$threads" -v tps="$tps" -v tx="$tx" -v ms="$cpu_ms" -v s="$syncs" \
    -v q="$queries" -v rss="$peak_rss_mib" \
    'BEGIN {printf "%s %s threads=%s tps=%s transactions=%s server_cpu_ms=%.0f cpu_us_per_txn=%.1f cpu_us_per_query=%.1f log_syncs=%s txn_per_sync=%.1f peak_rss_mib=%s\n",
            e, w, t, tps, tx, ms, ms * 1000 / tx, ms * 1000 / q, s, (s > 0 ? tx / s : 0), rss}'
