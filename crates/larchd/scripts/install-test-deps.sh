#!/bin/sh
# Installs the external programs larchd's tests and benchmarks use:
#   mariadb-client  the `mariadb` command-line client (tests/server.rs
#                   runs it against larchd; skipped when absent)
#   sysbench        OLTP benchmarks against larchd and MariaDB
#   mariadb-test    the `mariadb-test` (mysqltest) client and
#   mariadb-test-data  MariaDB's own test files, which tests/compat/run runs
#                   against larchd (tests/compat.rs; skipped when absent)
#   python3         tests/compat/run itself
#   mariadb-server  mariadbd and mariadb-install-db: the differential tester
#                   (tests/differential) runs a private MariaDB as its
#                   reference (skipped when absent); installed with no
#                   service started
#   tzdata          the zoneinfo database CONVERT_TZ reads named zones from
#                   (crates/larch-sql/tests/more_functions.rs)
# Debian/Ubuntu, non-interactive and idempotent, as root or through sudo
# (scripts/install-packages.sh).
#
# The tests skip (print SKIPPED and pass) when a program is missing, unless
# LARCH_REQUIRE_TEST_PROGRAMS=1 is set: then a missing program fails the
# test. .ci/run sets it when this script succeeds.
set -eu
exec "$(dirname "$0")/../../../scripts/install-packages.sh" --name install-test-deps \
    --no-service-start mariadb-client sysbench mariadb-test mariadb-test-data python3 \
    mariadb-server tzdata
