#!/bin/sh
# Installs the external programs larchd's tests and benchmarks use:
#   mariadb-client  the `mariadb` command-line client (tests/server.rs
#                   runs it against larchd; skipped when absent)
#   sysbench        OLTP benchmarks against larchd and MariaDB
#   mariadb-test    the `mariadb-test` (mysqltest) client and
#   mariadb-test-data  MariaDB's own test files, which tests/compat/run runs
#                   against larchd (tests/compat.rs; skipped when absent)
# Debian/Ubuntu, non-interactive and idempotent, as root or through sudo
# (scripts/install-packages.sh).
set -eu
exec "$(dirname "$0")/../../../scripts/install-packages.sh" --name install-test-deps \
    mariadb-client sysbench mariadb-test mariadb-test-data
