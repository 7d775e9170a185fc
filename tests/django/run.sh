#!/usr/bin/env bash
# Django's own test suite against larchd and against MariaDB 10.11, side by side.
#
#   tests/django/run.sh [--larchd BIN] [--apps "basic lookup ..."] [--quick]
#                       [--work DIR] [--only larch|mariadb] [--keep]
#
# Installs Django and mysqlclient from PyPI into a virtualenv (pinned below),
# takes Django's `tests/` from the same release's source distribution, starts a
# larchd and a MariaDB of its own on fresh data directories (nothing else is
# touched), and runs `tests/runtests.py --parallel=1` on each with Django's
# stock MySQL backend settings (tests/django/settings.py: no client-side
# patches, no options). Then tests/django/compare.py prints, per app, the tests
# run, those passed on each server and those that pass on MariaDB but not on
# Larch; the list of those is written to OUT/regressions.txt.
#
#   --larchd BIN  the larchd to test (default: a release build of this tree)
#   --apps LIST   Django test apps (default: the apps issue 22 lists)
#   --quick       a short subset of apps (what CI runs)
#   --work DIR    downloads, virtualenv and outputs (default ~/.cache/larch/django)
#   --only NAME   run on one server only (the comparison then needs an earlier
#                 run's output of the other, kept in OUT)
#   --keep        leave the servers' data directories in place
#
# Needs: python3 with venv and pip, network access to PyPI, and the Debian
# packages mariadb-server, mariadb-client, libmariadb-dev and pkg-config
# (installed by scripts/install-packages.sh when missing).
#
# Exit status: 0 when every test that passed on MariaDB passed on Larch.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DJANGO_VERSION=5.1.15
MYSQLCLIENT_VERSION=2.3.2

FULL_APPS="basic model_fields lookup queries aggregation annotations expressions
transactions select_for_update update delete ordering many_to_one many_to_many
one_to_one get_or_create bulk_create migrations schema introspection backends
db_functions dates datetimes timezones custom_lookups null_queries foreign_object
inspectdb indexes"
QUICK_APPS="basic lookup ordering update delete many_to_one one_to_one get_or_create null_queries"

LARCHD=""
APPS=$FULL_APPS
WORK=${HOME}/.cache/larch/django
ONLY=""
KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --larchd) LARCHD=$2; shift 2 ;;
        --apps) APPS=$2; shift 2 ;;
        --quick) APPS=$QUICK_APPS; shift ;;
        --work) WORK=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "django: unknown argument $1" >&2; exit 2 ;;
    esac
done

log() { echo "django: $*" >&2; }
die() { log "$*"; exit 1; }

"$ROOT/scripts/install-packages.sh" --name django --no-service-start \
    mariadb-server mariadb-client libmariadb-dev pkg-config python3-venv \
    || die "could not install the Debian packages it needs"

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
OUT=$WORK/out
mkdir -p "$OUT"

# Django, mysqlclient and Django's tests.
VENV=$WORK/venv-$DJANGO_VERSION
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import django, MySQLdb' 2>/dev/null; then
    log "installing Django $DJANGO_VERSION and mysqlclient $MYSQLCLIENT_VERSION into $VENV"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "django==$DJANGO_VERSION" "mysqlclient==$MYSQLCLIENT_VERSION"
fi
SRC=$WORK/django-$DJANGO_VERSION
if [ ! -f "$SRC/tests/runtests.py" ]; then
    log "downloading Django $DJANGO_VERSION's source distribution"
    "$VENV/bin/pip" download -q --no-deps --no-binary :all: -d "$WORK/sdist" "django==$DJANGO_VERSION"
    tar -xzf "$WORK/sdist/django-$DJANGO_VERSION.tar.gz" -C "$WORK"
fi
cp "$ROOT/tests/django/settings.py" "$SRC/tests/test_larch_settings.py"

if [ -z "$LARCHD" ] && [ "$ONLY" != mariadb ]; then
    log "building a release larchd"
    (cd "$ROOT" && cargo build -q --release -p larchd)
    LARCHD=${CARGO_TARGET_DIR:-$ROOT/target}/release/larchd
fi

ROOT_USER=()
[ "$(id -u)" -eq 0 ] && ROOT_USER=(--user=root)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ "$KEEP" = 0 ]; then rm -rf "$WORK/data-larch" "$WORK/data-mariadb"; fi
}
trap cleanup EXIT

start() { # name port -> starts the server, waits until it answers
    local name=$1 port=$2 dir=$WORK/data-$1 i
    rm -rf "$dir"
    mkdir -p "$dir"
    if [ "$name" = mariadb ]; then
        mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal \
            --skip-test-db "${ROOT_USER[@]}" >"$OUT/mariadb-install-db.log" 2>&1 \
            || die "mariadb-install-db failed (see $OUT/mariadb-install-db.log)"
        mariadbd --no-defaults --datadir="$dir/data" --socket="$dir/sock" --port="$port" \
            --bind-address=127.0.0.1 --skip-log-bin --log-error="$OUT/mariadb.err" "${ROOT_USER[@]}" &
    else
        "$LARCHD" --no-defaults --datadir="$dir/data" --socket="$dir/sock" --port="$port" \
            --bind-address=127.0.0.1 --log-error="$OUT/larch.err" "${ROOT_USER[@]}" &
    fi
    PIDS+=($!)
    for ((i = 0; i < 240; i++)); do
        if mariadb -h127.0.0.1 -P"$port" -uroot -e 'SELECT 1' >/dev/null 2>&1; then return 0; fi
        kill -0 "${PIDS[-1]}" 2>/dev/null || die "$name exited during start-up (see $OUT/$name.err)"
        sleep 0.5
    done
    die "$name gave no answer after 120 s"
}

run_suite() { # name -> OUT/name.log
    local name=$1 port
    port=$(free_port)
    start "$name" "$port"
    log "$name: runtests.py over: $(echo $APPS)"
    local started=$SECONDS app
    : >"$OUT/$name.log"
    # One run per app: an app whose models a server cannot create (its test
    # database setup fails) costs that app's tests, not every app's.
    for app in $APPS; do
        (cd "$SRC/tests" && LARCH_DJANGO_PORT=$port timeout --foreground -k 10 1800 \
            "$VENV/bin/python" -u runtests.py --settings=test_larch_settings --parallel=1 -v 2 \
            --noinput "$app") >>"$OUT/$name.log" 2>&1 || true
    done
    log "$name: finished in $((SECONDS - started)) s"
}

for name in mariadb larch; do
    if [ -z "$ONLY" ] || [ "$ONLY" = "$name" ]; then run_suite "$name"; fi
done

python3 "$ROOT/tests/django/compare.py" "$OUT/mariadb.log" "$OUT/larch.log" \
    --regressions "$OUT/regressions.txt"
