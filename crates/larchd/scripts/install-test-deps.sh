#!/bin/sh
# Installs the external programs larchd's tests and benchmarks use:
#   mariadb-client  the `mariadb` command-line client (tests/server.rs
#                   runs it against larchd; skipped when absent)
#   sysbench        OLTP benchmarks against larchd and MariaDB
#   mariadb-test    the `mariadb-test` (mysqltest) client and
#   mariadb-test-data  MariaDB's own test files, which tests/compat/run runs
#                   against larchd (tests/compat.rs; skipped when absent)
# Debian/Ubuntu (apt-get), non-interactive and idempotent: packages already
# installed are left alone. Needs root, or sudo.
set -eu

PACKAGES="mariadb-client sysbench mariadb-test mariadb-test-data"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-test-deps: needs root or sudo" >&2
    exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-test-deps: apt-get not found; install these packages by hand: $PACKAGES" >&2
    exit 1
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "install-test-deps: already installed: $PACKAGES"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
echo "install-test-deps: installed:$missing"
