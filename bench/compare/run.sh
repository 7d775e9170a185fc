#!/usr/bin/env bash
# bench/compare/run.sh: Larch and MariaDB side by side, on this machine, in one run.
#
#   bench/compare/run.sh [--quick|--full] [--out DIR] [--workloads a,b] [--threads 1,4,16]
#                        [more options: --help]
#
# Method
#   1. Build larchd (cargo build --release -p larchd) unless --larchd BIN is given.
#   2. Start two private servers, each with its own fresh data directory under a
#      temporary directory (--dir, default $TMPDIR or /tmp), listening on a free
#      127.0.0.1 port, with the same InnoDB settings (buffer pool, redo log size,
#      flush-log-at-trx-commit, doublewrite, page size, O_DIRECT):
#        MariaDB: mariadb-install-db + mariadbd --no-defaults (binary log off);
#        Larch:   larchd with the same mysqld-style options.
#      Both run for the whole benchmark; all traffic stays on 127.0.0.1.
#   3. For each workload, in the order given: a sysbench 1.0 OLTP script or one of
#      the scenarios (step 4).
#      For a sysbench workload:
#        - both engines: DROP/CREATE DATABASE sbtest, `sysbench ... prepare`
#          (timed: the load figure), then one untimed warm-up run;
#        - for each thread count and each round: one timed `sysbench ... run` per
#          engine, one after the other. The order swaps at every thread count and
#          every round (M L, L M, M L ...; with 2 rounds each pair is M L L M), so
#          drift of the machine (other processes, page cache, CPU clocks) falls on
#          both engines alike. VmRSS of the server is read right after its run;
#        - `sysbench ... cleanup` on both.
#      A failing step on one engine (unsupported statement, timeout, crash) is
#      recorded with sysbench's error text and that engine skips the rest of the
#      workload; the other engine and the next workloads go on. A server that
#      died is restarted (same data directory) before the next workload.
#   4. A scenario (long_report, many_index, many_tables, status, rss_mixed,
#      connect, group_by_memory, result_memory, online_index, analytics; see
#      bench/compare/scenarios.py and
#      bench/README.md) runs on one
#      engine, then on the other (the first engine alternates from one workload
#      to the next), each on a freshly restarted server (same data directory),
#      through scenarios.py, which records its figures in OUT/scenarios.tsv and
#      a failing step (with the server's error text) in OUT/failures.tsv.
#   5. Stop both servers with SIGTERM (SIGKILL after 120 s), also on Ctrl-C and
#      errors; delete the temporary directory unless --keep.
#   6. Write OUT/results.tsv, OUT/scenarios.tsv, OUT/summary.md (Larch/MariaDB
#      ratio of every figure, machine, versions, settings, commands, failures) and
#      the PNG plots.
#
# Every wait is bounded: server start 120 s, prepare 120 s + 1 s per 500 rows,
# each run its duration + 120 s, cleanup 300 s, shutdown 120 s, a scenario on
# one engine its limit (`scenarios.py limit MODE NAME`; each of its statements
# and sysbench processes has a limit of its own).
# Needs: bench/compare/install-deps.sh (mariadb-server, mariadb-client, sysbench,
# gnuplot-nox, python3). Results are only meaningful as ratios from one run.
set -Eeuo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
REPORT="$HERE/report.py"
SCEN="$HERE/scenarios.py"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

usage() {
    cat <<'EOF'
Usage: bench/compare/run.sh [options]

  --quick               oltp_point_select, oltp_read_only at 1,4,16 threads, 10,000
                        rows, 10 s runs, 1 round, then the scenarios at small
                        sizes (default; under 10 minutes)
  --full                oltp_point_select, oltp_read_only, oltp_read_write,
                        oltp_update_index, oltp_insert at 1,4,16,64,256,1024 threads,
                        1,000,000 rows, 30 s runs, 2 rounds, then the scenarios at
                        full size (several hours)
  --workloads a,b       what to run (override the mode's list): sysbench OLTP
                        scripts and the scenarios long_report, many_index,
                        many_tables, status, rss_mixed, connect,
                        group_by_memory, result_memory, online_index, analytics (sizes:
                        scenarios.py settings)
  --threads 1,4,16      client thread counts (override)
  --table-size N        rows in sbtest1 (override)
  --time S              seconds per timed run (override)
  --warmup S            seconds of the untimed warm-up run per workload and engine
                        (default 5 quick, 20 full)
  --rounds N            timed runs per engine, thread count and workload; the
                        median is reported (default 1 quick, 2 full)
  --buffer-pool SIZE    innodb_buffer_pool_size for both (default 256M quick, 2G full)
  --log-file-size SIZE  innodb_log_file_size for both (default 256M quick, 1G full)
  --flush-log N         innodb_flush_log_at_trx_commit for both (default 1)
  --doublewrite 0|1     innodb_doublewrite for both (default 1)
  --page-size SIZE      innodb_page_size for both (default 16k)
  --ps-mode auto|disable  sysbench --db-ps-mode: server-side prepared statements
                        (auto, sysbench's default) or text queries
  --out DIR             results directory (default bench/results/compare-<UTC time>-<mode>)
  --dir DIR             where to create the temporary data directories (default
                        $TMPDIR or /tmp); must be a real disk, not tmpfs
  --keep                keep the temporary data directories and print where
  --larchd BIN          use this larchd binary instead of building one
  --only-mariadb        run the MariaDB side only (no build, no ratios)
  --only-larch          run the Larch side only (no ratios)
  -h, --help            this text
EOF
}

die() { echo "compare: $*" >&2; exit 1; }
log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# ------------------------------------------------------------------ options

MODE=quick
OUT="" DIR="${TMPDIR:-/tmp}" KEEP=0 LARCHD_BIN=""
RUN_MARIADB=1 RUN_LARCH=1
O_WORKLOADS="" O_THREADS="" O_TABLE="" O_TIME="" O_WARMUP="" O_ROUNDS=""
O_BP="" O_LOGSZ="" FLUSH=1 DOUBLEWRITE=1 PAGE_SIZE=16k PS_MODE=auto
ORIG_ARGS="$*"

need() { [ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) MODE=quick ;;
        --full) MODE=full ;;
        --out) need "$@"; OUT=$2; shift ;;
        --dir) need "$@"; DIR=$2; shift ;;
        --workloads) need "$@"; O_WORKLOADS=$2; shift ;;
        --threads) need "$@"; O_THREADS=$2; shift ;;
        --table-size) need "$@"; O_TABLE=$2; shift ;;
        --time) need "$@"; O_TIME=$2; shift ;;
        --warmup) need "$@"; O_WARMUP=$2; shift ;;
        --rounds) need "$@"; O_ROUNDS=$2; shift ;;
        --buffer-pool) need "$@"; O_BP=$2; shift ;;
        --log-file-size) need "$@"; O_LOGSZ=$2; shift ;;
        --flush-log) need "$@"; FLUSH=$2; shift ;;
        --doublewrite) need "$@"; DOUBLEWRITE=$2; shift ;;
        --page-size) need "$@"; PAGE_SIZE=$2; shift ;;
        --ps-mode) need "$@"; PS_MODE=$2; shift ;;
        --keep) KEEP=1 ;;
        --larchd) need "$@"; LARCHD_BIN=$2; shift ;;
        --only-mariadb) RUN_LARCH=0 ;;
        --only-larch) RUN_MARIADB=0 ;;
        -h|--help) usage; exit 0 ;;
        *=*) # --name=value form
            name=${1%%=*} value=${1#*=}; shift
            set -- "$name" "$value" "$@"; continue ;;
        *) usage >&2; die "unknown option '$1'" ;;
    esac
    shift
done
[ "$RUN_MARIADB$RUN_LARCH" != "00" ] || die "--only-mariadb and --only-larch exclude each other"

if [ "$MODE" = quick ]; then
    WORKLOADS=oltp_point_select,oltp_read_only THREADS=1,4,16 TABLE_SIZE=10000
    TIME=10 WARMUP=5 ROUNDS=1 BUFFER_POOL=256M LOG_FILE_SIZE=256M
else
    WORKLOADS=oltp_point_select,oltp_read_only,oltp_read_write,oltp_update_index,oltp_insert
    THREADS=1,4,16,64,256,1024 TABLE_SIZE=1000000
    TIME=30 WARMUP=20 ROUNDS=2 BUFFER_POOL=2G LOG_FILE_SIZE=1G
fi
SCENARIO_NAMES=long_report,many_index,many_tables,status,rss_mixed,connect,group_by_memory,result_memory,online_index,analytics
WORKLOADS=${O_WORKLOADS:-$WORKLOADS,$SCENARIO_NAMES} THREADS=${O_THREADS:-$THREADS}
TABLE_SIZE=${O_TABLE:-$TABLE_SIZE} TIME=${O_TIME:-$TIME} WARMUP=${O_WARMUP:-$WARMUP}
ROUNDS=${O_ROUNDS:-$ROUNDS} BUFFER_POOL=${O_BP:-$BUFFER_POOL}
LOG_FILE_SIZE=${O_LOGSZ:-$LOG_FILE_SIZE}

int() { [[ $2 =~ ^[0-9]+$ ]] || die "$1 must be a number, not '$2'"; }
int --table-size "$TABLE_SIZE"; int --time "$TIME"; int --warmup "$WARMUP"
int --rounds "$ROUNDS"; int --flush-log "$FLUSH"; int --doublewrite "$DOUBLEWRITE"
[ "$ROUNDS" -ge 1 ] && [ "$TIME" -ge 1 ] || die "--rounds and --time must be at least 1"
[[ $THREADS =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--threads wants numbers like 1,4,16"
[[ $WORKLOADS =~ ^[a-z_0-9]+(,[a-z_0-9]+)*$ ]] || die "--workloads wants names like oltp_point_select,oltp_read_only"
case "$PS_MODE" in auto|disable) ;; *) die "--ps-mode is auto or disable" ;; esac
IFS=, read -r -a WL_LIST <<<"$WORKLOADS"
is_scenario() { [[ ,$SCENARIO_NAMES, == *,$1,* ]]; }
IFS=, read -r -a TH_LIST <<<"$THREADS"

# ------------------------------------------------------------------ tools

for t in sysbench mariadb timeout awk; do
    command -v "$t" >/dev/null || die "'$t' not found: run bench/compare/install-deps.sh"
done
if [ "$RUN_MARIADB" = 1 ]; then
    for t in mariadbd mariadb-install-db; do
        command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] ||
            die "'$t' not found: run bench/compare/install-deps.sh"
    done
fi
MARIADBD=$(command -v mariadbd || echo /usr/sbin/mariadbd)
command -v gnuplot >/dev/null || log "gnuplot not found: no plots (bench/compare/install-deps.sh installs it)"
for wl in "${WL_LIST[@]}"; do
    is_scenario "$wl" && continue
    [ -f "/usr/share/sysbench/$wl.lua" ] || [ -f "$wl" ] ||
        log "warning: no /usr/share/sysbench/$wl.lua; sysbench will look for '$wl' itself"
done

# More connections than the default 1024 descriptors allow at 1024 threads.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$ROOT/bench/results/compare-$STAMP-$MODE}
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
for f in results.tsv scenarios.tsv runs.tsv prepare.tsv failures.tsv env.tsv summary.md; do rm -f "$OUT/$f"; done
rm -rf "$OUT/series"
printf 'engine\tworkload\tthreads\ttps\tqps\tlat_avg_ms\tlat_p95_ms\terrors\trss_kb\n' >"$OUT/results.tsv"
printf 'engine\tscenario\tstep\tfigure\tvalue\tunit\tstatus\n' >"$OUT/scenarios.tsv"
printf 'engine\tworkload\tthreads\tround\tposition\tstatus\treads\twrites\tother\treconnects\tlog\n' >"$OUT/runs.tsv"
printf 'engine\tworkload\tseconds\tstatus\trss_kb\n' >"$OUT/prepare.tsv"
printf 'engine\tworkload\tstep\tmessage\n' >"$OUT/failures.tsv"
printf 'key\tvalue\n' >"$OUT/env.tsv"

# One line of env.tsv (tabs and newlines flattened).
envset() { printf '%s\t%s\n' "$1" "$(printf '%s' "$2" | tr '\t\n' '  ')" >>"$OUT/env.tsv"; }
fail_rec() { # engine workload step message
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(printf '%s' "$4" | tr '\t\n' '  ')" >>"$OUT/failures.tsv"
    log "FAILED: $1 $2 $3: $4"
}

ENGINES=()
[ "$RUN_MARIADB" = 1 ] && ENGINES+=(mariadb)
[ "$RUN_LARCH" = 1 ] && ENGINES+=(larch)

# ------------------------------------------------------------------ build larchd

if [ "$RUN_LARCH" = 1 ] && [ -z "$LARCHD_BIN" ]; then
    command -v cargo >/dev/null || die "cargo not found (needed to build larchd; or pass --larchd BIN)"
    if ! (cd "$ROOT" && cargo metadata --no-deps --format-version 1 2>/dev/null) |
        "$PY" -c 'import json,sys; sys.exit(0 if any(p["name"]=="larchd" for p in json.load(sys.stdin)["packages"]) else 1)'; then
        die "this workspace has no 'larchd' package yet (crates/larchd), so there is no Larch server to measure; run with --only-mariadb meanwhile"
    fi
    log "building larchd: cargo build --release -p larchd (log: $OUT/build.log)"
    if ! (cd "$ROOT" && timeout --foreground 3600 cargo build --release -p larchd \
            --message-format=json-render-diagnostics >"$OUT/build.json" 2>"$OUT/build.log"); then
        tail -n 20 "$OUT/build.log" >&2
        die "cargo build --release -p larchd failed (full log: $OUT/build.log); run with --only-mariadb, or --larchd BIN"
    fi
    LARCHD_BIN=$("$PY" -c '
import json, sys
exe = ""
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "larchd" and m.get("executable"):
        exe = m["executable"]
print(exe)' "$OUT/build.json")
    rm -f "$OUT/build.json"
    [ -n "$LARCHD_BIN" ] && [ -x "$LARCHD_BIN" ] || die "cargo built no larchd executable"
fi
if [ "$RUN_LARCH" = 1 ]; then
    [ -x "$LARCHD_BIN" ] || die "larchd binary '$LARCHD_BIN' is not executable"
    LARCHD_BIN=$(cd "$(dirname "$LARCHD_BIN")" && pwd)/$(basename "$LARCHD_BIN")
fi

# ------------------------------------------------------------------ servers

mkdir -p "$DIR"
SCRATCH=$(mktemp -d "$DIR/larch-compare.XXXXXX")
declare -A PID=() PORT=() DEAD=() SKIP=() ERRLOG=()
SUMMARY_DONE=0 SC_PID=""

free_port() {
    "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT[mariadb]=$(free_port)
PORT[larch]=$(free_port)
for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ "${PORT[larch]}" != "${PORT[mariadb]}" ] && break
    PORT[larch]=$(free_port)
done
ERRLOG[mariadb]=$SCRATCH/mariadb/mariadb.err
ERRLOG[larch]=$SCRATCH/larch/larchd.err

# The client, over TCP to the engine's port, ignoring any my.cnf.
client() { # engine mariadb-client-args...
    local e=$1; shift
    timeout --foreground -k 5 60 mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"${PORT[$e]}" \
        -uroot --connect-timeout=5 "$@"
}
alive() { [ -n "${PID[$1]:-}" ] && kill -0 "${PID[$1]}" 2>/dev/null; }
rss_kb() { # engine -> VmRSS in kB, or NA
    local v=""
    alive "$1" && v=$(awk '/^VmRSS:/ {print $2}' "/proc/${PID[$1]}/status" 2>/dev/null || true)
    echo "${v:-NA}"
}

ENGINE_OPTS=(
    --innodb-buffer-pool-size="$BUFFER_POOL"
    --innodb-log-file-size="$LOG_FILE_SIZE"
    --innodb-flush-log-at-trx-commit="$FLUSH"
    --innodb-doublewrite="$DOUBLEWRITE"
    --innodb-page-size="$PAGE_SIZE"
    --innodb-flush-method=O_DIRECT
    --max-connections=2000
    --skip-log-bin
    --skip-name-resolve
)
# innodb_sort_buffer_size (the many_index scenario): a read-only startup option
# of MariaDB (a sort buffer per index built); Larch's equivalent is the session
# variable innodb_ddl_buffer_size (one budget per build thread for all the
# indexes), which scenarios.py sets to the same value.
SORT_BUFFER=64M
# MariaDB saves the list of its buffer pool pages at shutdown and reads them
# back at start-up; larchd starts cold. The scenarios restart the servers, so
# both start cold.
MARIADB_COLD=(--innodb-buffer-pool-dump-at-shutdown=0 --innodb-buffer-pool-load-at-startup=0)
ROOT_USER=()
[ "$(id -u)" -eq 0 ] && ROOT_USER=(--user=root)   # mariadbd refuses root without it

server_cmd() { # engine -> the command line in SERVER_CMD
    local e=$1 d=$SCRATCH/$1
    if [ "$e" = mariadb ]; then
        SERVER_CMD=("$MARIADBD" --no-defaults --datadir="$d/data" --socket="$d/mariadb.sock"
            --pid-file="$d/mariadb.pid" --log-error="${ERRLOG[$e]}" --port="${PORT[$e]}"
            --bind-address=127.0.0.1 "${ENGINE_OPTS[@]}" --max-prepared-stmt-count=1048576
            --innodb-sort-buffer-size="$SORT_BUFFER" "${MARIADB_COLD[@]}" "${ROOT_USER[@]}")
    else
        SERVER_CMD=("$LARCHD_BIN" --no-defaults --datadir="$d/data" --socket="$d/larchd.sock"
            --pid-file="$d/larchd.pid" --log-error="${ERRLOG[$e]}" --port="${PORT[$e]}"
            --bind-address=127.0.0.1 "${ENGINE_OPTS[@]}" "${ROOT_USER[@]}")
    fi
}

start_server() { # engine; 0 when it answers `select 1`
    local e=$1 d=$SCRATCH/$1 i
    mkdir -p "$d"
    if [ "$e" = mariadb ] && [ ! -d "$d/data/mysql" ]; then
        log "mariadb: mariadb-install-db into $d/data"
        if ! timeout --foreground -k 5 300 mariadb-install-db --no-defaults --datadir="$d/data" \
                --auth-root-authentication-method=normal --skip-test-db \
                --innodb-page-size="$PAGE_SIZE" "${ROOT_USER[@]}" >"$OUT/mariadb-install-db.log" 2>&1; then
            tail -n 20 "$OUT/mariadb-install-db.log" >&2
            return 1
        fi
    fi
    server_cmd "$e"
    log "$e: starting on 127.0.0.1:${PORT[$e]}"
    "${SERVER_CMD[@]}" >>"$d/stdout.log" 2>&1 &
    PID[$e]=$!
    for ((i = 0; i < 240; i++)); do          # 120 s
        if ! alive "$e"; then
            log "$e: exited during start-up; last lines of its log:"
            tail -n 15 "${ERRLOG[$e]}" "$d/stdout.log" >&2 2>/dev/null || true
            PID[$e]=""
            return 1
        fi
        if client "$e" -e 'SELECT 1' >/dev/null 2>&1; then
            log "$e: ready (pid ${PID[$e]}, RSS $(rss_kb "$e") kB)"
            return 0
        fi
        sleep 0.5
    done
    log "$e: no answer after 120 s"
    stop_server "$e"
    return 1
}

stop_server() { # engine: SIGTERM, wait up to 120 s, then SIGKILL
    local e=$1 pid=${PID[$1]:-} i
    [ -n "$pid" ] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        log "$e: stopping (SIGTERM to pid $pid)"
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 240; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        if kill -0 "$pid" 2>/dev/null; then
            log "$e: still running after 120 s, SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    wait "$pid" 2>/dev/null || true
    PID[$e]=""
}

on_exit() {
    local rc=$?
    trap - EXIT INT TERM
    # A scenario still running: its process group (timeout, scenarios.py, sysbench).
    if [ -n "$SC_PID" ] && kill -0 "$SC_PID" 2>/dev/null; then
        kill -TERM -- -"$SC_PID" 2>/dev/null || kill -TERM "$SC_PID" 2>/dev/null || true
        wait "$SC_PID" 2>/dev/null || true
    fi
    for e in "${ENGINES[@]}"; do stop_server "$e"; done
    [ -f "${ERRLOG[mariadb]}" ] && cp "${ERRLOG[mariadb]}" "$OUT/mariadb.err"
    [ -f "${ERRLOG[larch]}" ] && cp "${ERRLOG[larch]}" "$OUT/larchd.err"
    if [ "$SUMMARY_DONE" = 0 ] && { [ "$(wc -l <"$OUT/results.tsv")" -gt 1 ] ||
            [ "$(wc -l <"$OUT/scenarios.tsv")" -gt 1 ]; }; then
        envset finished "$(date -u '+%Y-%m-%d %H:%M:%S') (interrupted, exit $rc)"
        "$PY" "$REPORT" summary "$OUT" >/dev/null 2>&1 &&
            log "partial summary: $OUT/summary.md"
    fi
    if [ "$KEEP" = 1 ]; then
        log "kept the data directories: $SCRATCH"
    else
        rm -rf "$SCRATCH"
    fi
    exit "$rc"
}
trap on_exit EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# ------------------------------------------------------------------ environment

envset mode "$MODE"
envset started "$(date -u '+%Y-%m-%d %H:%M:%S')"
envset cmd_run "bench/compare/run.sh $ORIG_ARGS"
envset cpu_model "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
envset nproc "$(nproc)"
envset mem_total "$(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
envset kernel "$(uname -srm)"
envset os "$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}")"
envset scratch_fs "$(df -PT "$SCRATCH" | awk 'NR == 2 {print $2 " (" $7 ")"}')"
envset load_start "$(cut -d' ' -f1-3 /proc/loadavg)"
envset sysbench_version "$(sysbench --version 2>&1 | head -n 1)"
if [ "$RUN_MARIADB" = 1 ]; then
    envset mariadb_version "$("$MARIADBD" --version 2>&1 | head -n 1)"
fi
if [ "$RUN_LARCH" = 1 ]; then
    envset larchd_version "$("$LARCHD_BIN" --version 2>&1 | head -n 1)"
fi
git_commit=$(cd "$ROOT" && git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(cd "$ROOT" && git --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null | head -n 1)" ]; then
    git_commit="$git_commit (with uncommitted changes)"
fi
envset git_commit "$git_commit"
envset workloads "$WORKLOADS"
envset threads "$THREADS"
envset table_size "$TABLE_SIZE"
envset time "$TIME"
envset warmup "$WARMUP"
envset rounds "$ROUNDS"
envset ps_mode "$PS_MODE"
envset buffer_pool "$BUFFER_POOL"
envset log_file_size "$LOG_FILE_SIZE"
envset flush_log "$FLUSH"
envset doublewrite "$DOUBLEWRITE"
envset page_size "$PAGE_SIZE"
envset sort_buffer "$SORT_BUFFER"
for wl in "${WL_LIST[@]}"; do
    is_scenario "$wl" || continue
    envset "scenario_$wl" "$("$PY" "$SCEN" settings "$MODE" | awk -F'\t' -v n="$wl" '$1 == n {print $2}')"
done
envset run_mariadb "$RUN_MARIADB"
envset run_larch "$RUN_LARCH"

fstype=$(df -PT "$SCRATCH" | awk 'NR == 2 {print $2}')
[ "$fstype" != tmpfs ] || log "warning: $SCRATCH is on tmpfs: fsync is free there, the write figures mean little"

# ------------------------------------------------------------------ start

for e in "${ENGINES[@]}"; do
    server_cmd "$e"
    if ! start_server "$e"; then
        [ "$e" = larch ] || die "$e did not start (see the lines above)"
        # No Larch today: record it and measure MariaDB alone.
        fail_rec larch - start "larchd did not start: $(cat "${ERRLOG[larch]}" "$SCRATCH/larch/stdout.log" 2>/dev/null | tail -n 3 | tr '\n' ' ')"
        DEAD[larch]=1
        continue
    fi
    envset "cmd_$([ "$e" = larch ] && echo larchd || echo mariadb)" "${SERVER_CMD[*]}"
    eff=""
    for v in version innodb_buffer_pool_size innodb_log_file_size innodb_flush_log_at_trx_commit \
             innodb_doublewrite innodb_page_size innodb_flush_method max_connections \
             innodb_sort_buffer_size table_open_cache; do
        val=$(client "$e" -N -B -e "SELECT @@$v" 2>/dev/null | head -n 1 || true)
        eff="$eff $v=${val:-?}"
    done
    envset "effective_$e" "${eff# }"
    log "$e:$eff"
done
[ "$RUN_MARIADB" = 1 ] && envset cmd_mariadb_init "mariadb-install-db --no-defaults --datadir=DIR --auth-root-authentication-method=normal --skip-test-db --innodb-page-size=$PAGE_SIZE ${ROOT_USER[*]}"
for e in "${ENGINES[@]}"; do envset "rss_idle_$e" "$(rss_kb "$e")"; done

# ------------------------------------------------------------------ sysbench

sb_common() { # engine workload -> SB array
    SB=(sysbench "$2" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="${PORT[$1]}"
        --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1
        --table-size="$TABLE_SIZE" --db-ps-mode="$PS_MODE")
}
envset cmd_prepare "sysbench WORKLOAD --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=PORT --mysql-user=root --mysql-password= --mysql-db=sbtest --tables=1 --table-size=$TABLE_SIZE --db-ps-mode=$PS_MODE prepare"
envset cmd_warmup "sysbench WORKLOAD ...same... --threads=${TH_LIST[0]} --time=$WARMUP --report-interval=0 run   # untimed"
envset cmd_sysbench_run "sysbench WORKLOAD ...same... --threads=T --time=$TIME --report-interval=0 --percentile=95 --histogram=off run"
envset cmd_cleanup "sysbench WORKLOAD ...same... cleanup"

# Runs one sysbench step with a time limit; its output goes to $LOGF.
# Returns sysbench's status (124: timed out).
sb_step() { # engine workload limit-seconds logfile sysbench-args...
    local e=$1 wl=$2 limit=$3
    LOGF=$4
    shift 4
    sb_common "$e" "$wl"
    local rc=0
    timeout --foreground -k 10 "$limit" "${SB[@]}" "$@" >"$LOGF" 2>&1 || rc=$?
    # Ctrl-C reaches sysbench, which exits 130 (143 for SIGTERM); bash then
    # does not run its own INT trap, so stop here.
    if [ "$rc" = 130 ] || [ "$rc" = 143 ]; then
        log "interrupted"
        exit "$rc"
    fi
    return "$rc"
}

# The failure text of a step that did not work.
why() { # engine rc logfile
    local msg
    msg=$("$PY" "$REPORT" failure "$3" 2>/dev/null || echo "(unreadable log)")
    [ "$2" = 124 ] && msg="timed out; $msg"
    [ "$2" = 137 ] && msg="killed after the time limit; $msg"
    alive "$1" || msg="$msg; the server exited (see $([ "$1" = larch ] && echo larchd || echo mariadb).err)"
    echo "$msg (exit $2, log logs/$(basename "$3"))"
}

prepare_engine() { # engine workload; 0 when prepared and warmed up
    local e=$1 wl=$2 rc=0 t0 t1 secs
    if ! client "$e" -e 'DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest' >"$OUT/logs/$e-$wl-createdb.log" 2>&1; then
        fail_rec "$e" "$wl" "create database" "$(tr '\n' ' ' <"$OUT/logs/$e-$wl-createdb.log")"
        return 1
    fi
    log "$e $wl: prepare ($TABLE_SIZE rows)"
    t0=$(date +%s.%N)
    sb_step "$e" "$wl" $((120 + TABLE_SIZE / 500)) "$OUT/logs/$e-$wl-prepare.log" prepare || rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
    if [ "$rc" != 0 ]; then
        printf '%s\t%s\t%s\tfail\t%s\n' "$e" "$wl" "$secs" "$(rss_kb "$e")" >>"$OUT/prepare.tsv"
        fail_rec "$e" "$wl" prepare "$(why "$e" "$rc" "$LOGF")"
        return 1
    fi
    printf '%s\t%s\t%s\tok\t%s\n' "$e" "$wl" "$secs" "$(rss_kb "$e")" >>"$OUT/prepare.tsv"
    log "$e $wl: prepared in $secs s; warm-up ${WARMUP} s at ${TH_LIST[0]} threads"
    if [ "$WARMUP" -gt 0 ]; then
        rc=0
        sb_step "$e" "$wl" $((WARMUP + 120)) "$OUT/logs/$e-$wl-warmup.log" \
            --threads="${TH_LIST[0]}" --time="$WARMUP" --report-interval=0 run || rc=$?
        if [ "$rc" != 0 ] || ! "$PY" "$REPORT" parse "$LOGF" >/dev/null; then
            fail_rec "$e" "$wl" "warm-up" "$(why "$e" "$rc" "$LOGF")"
            return 1
        fi
    fi
    return 0
}

run_one() { # engine workload threads round position
    local e=$1 wl=$2 t=$3 r=$4 pos=$5 rc=0 figs rss
    local f="$OUT/logs/$e-$wl-t$t-r$r.log"
    log "$e $wl: $t threads, ${TIME} s (round $r)"
    sb_step "$e" "$wl" $((TIME + 120)) "$f" \
        --threads="$t" --time="$TIME" --report-interval=0 --percentile=95 --histogram=off run || rc=$?
    rss=$(rss_kb "$e")
    if [ "$rc" = 0 ] && figs=$("$PY" "$REPORT" parse "$f"); then
        IFS=$'\t' read -r tps qps avg p95 errs reconn reads writes other <<<"$figs"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$e" "$wl" "$t" "$tps" "$qps" "$avg" "$p95" "$errs" "$rss" >>"$OUT/results.tsv"
        printf '%s\t%s\t%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\t%s\n' "$e" "$wl" "$t" "$r" "$pos" "$reads" "$writes" "$other" "$reconn" "logs/$(basename "$f")" >>"$OUT/runs.tsv"
        log "$e $wl $t thr: $tps tps, avg $avg ms, p95 $p95 ms, errors $errs, RSS $rss kB"
    else
        printf '%s\t%s\t%s\tNA\tNA\tNA\tNA\tNA\t%s\n' "$e" "$wl" "$t" "$rss" >>"$OUT/results.tsv"
        printf '%s\t%s\t%s\t%s\t%s\tfail\t0\t0\t0\t0\t%s\n' "$e" "$wl" "$t" "$r" "$pos" "logs/$(basename "$f")" >>"$OUT/runs.tsv"
        fail_rec "$e" "$wl" "run $t threads" "$(why "$e" "$rc" "$f")"
        SKIP[$e]=1
    fi
    sleep 2   # let the engine's background work of this run settle a little
}

ensure_up() { # engine; restarts a server that died
    local e=$1
    [ "${DEAD[$e]:-0}" = 1 ] && return 1
    alive "$e" && return 0
    log "$e: not running; restarting it on its data directory"
    if start_server "$e"; then return 0; fi
    DEAD[$e]=1
    fail_rec "$e" "-" restart "the server did not start again; its remaining workloads are skipped"
    return 1
}

# One scenario on one engine, through scenarios.py, within its time limit. The
# limit's `timeout` leads a process group of its own (scenarios.py and its
# sysbench children), which on_exit ends on Ctrl-C.
run_scenario() { # engine scenario phase ("-": the whole scenario)
    local e=$1 sc=$2 phase=$3 limit rc=0 t0 what=$2
    [ "$phase" = - ] || what="$sc ($phase)"
    limit=$("$PY" "$SCEN" limit "$MODE" "$sc")
    log "$e $what: scenario (limit $limit s)"
    t0=$(date +%s)
    timeout -k 10 "$limit" "$PY" "$SCEN" run "$sc" --engine "$e" --port "${PORT[$e]}" \
        --pid "${PID[$e]}" --datadir "$SCRATCH/$e/data" --out "$OUT" --mode "$MODE" \
        --ps-mode "$PS_MODE" --phase "${phase#-}" 2> >(tee -a "$OUT/logs/$e-$sc.log" >&2) &
    SC_PID=$!
    wait "$SC_PID" || rc=$?
    SC_PID=""
    case "$rc" in
        0) ;;
        124|137) fail_rec "$e" "$sc" scenario "stopped at the scenario's time limit of $limit s (log logs/$e-$sc.log)" ;;
        *) fail_rec "$e" "$sc" scenario "scenarios.py exited $rc: $(tail -n 2 "$OUT/logs/$e-$sc.log" | tr '\n' ' ')" ;;
    esac
    alive "$e" || fail_rec "$e" "$sc" scenario "the server exited during the scenario (see $([ "$e" = larch ] && echo larchd || echo mariadb).err)"
    log "$e $what: done in $(($(date +%s) - t0)) s"
    sleep 1
}

cell=0
for ((w = 0; w < ${#WL_LIST[@]}; w++)); do
    wl=${WL_LIST[$w]}
    log "=== workload $wl"
    # Prepare order alternates by workload too.
    order=("${ENGINES[@]}")
    if [ ${#ENGINES[@]} = 2 ] && [ $((w % 2)) = 1 ]; then order=(larch mariadb); fi
    if is_scenario "$wl"; then
        read -r -a phases <<<"$("$PY" "$SCEN" phases "$wl")"
        for e in "${order[@]}"; do
            for ph in "${phases[@]}"; do
                ensure_up "$e" || break
                # A fresh server process (same data directory), so the
                # scenario's RSS figures start from a server that has run
                # nothing else.
                log "$e: restarting before $wl$([ "$ph" = - ] || echo " ($ph)")"
                stop_server "$e"
                if ! start_server "$e"; then
                    DEAD[$e]=1
                    fail_rec "$e" "$wl" restart "the server did not start again; its remaining workloads are skipped"
                    break
                fi
                run_scenario "$e" "$wl" "$ph"
            done
        done
        continue
    fi
    for e in "${order[@]}"; do
        SKIP[$e]=0
        if ! ensure_up "$e"; then SKIP[$e]=1; continue; fi
        prepare_engine "$e" "$wl" || SKIP[$e]=1
    done
    for t in "${TH_LIST[@]}"; do
        for ((r = 1; r <= ROUNDS; r++)); do
            order=("${ENGINES[@]}")
            if [ ${#ENGINES[@]} = 2 ] && [ $(((cell + r - 1) % 2)) = 1 ]; then order=(larch mariadb); fi
            pos=0
            for e in "${order[@]}"; do
                pos=$((pos + 1))
                [ "${SKIP[$e]}" = 1 ] && continue
                run_one "$e" "$wl" "$t" "$r" "$pos"
            done
        done
        cell=$((cell + 1))
    done
    for e in "${ENGINES[@]}"; do
        alive "$e" || continue
        [ "${DEAD[$e]:-0}" = 1 ] && continue
        rc=0
        sb_step "$e" "$wl" 300 "$OUT/logs/$e-$wl-cleanup.log" cleanup || rc=$?
        [ "$rc" = 0 ] || fail_rec "$e" "$wl" cleanup "$(why "$e" "$rc" "$LOGF")"
    done
done

# ------------------------------------------------------------------ finish

for e in "${ENGINES[@]}"; do envset "rss_end_$e" "$(rss_kb "$e")"; done
envset load_end "$(cut -d' ' -f1-3 /proc/loadavg)"
for e in "${ENGINES[@]}"; do stop_server "$e"; done
envset finished "$(date -u '+%Y-%m-%d %H:%M:%S')"
[ -f "${ERRLOG[mariadb]}" ] && cp "${ERRLOG[mariadb]}" "$OUT/mariadb.err"
[ -f "${ERRLOG[larch]}" ] && cp "${ERRLOG[larch]}" "$OUT/larchd.err"
"$PY" "$REPORT" summary "$OUT" >/dev/null
SUMMARY_DONE=1
log "results: $OUT/results.tsv"
log "summary: $OUT/summary.md"
nfail=$(($(wc -l <"$OUT/failures.tsv") - 1))
[ "$nfail" = 0 ] || log "$nfail failure(s) recorded (see the summary)"
