#!/bin/sh
# Installs what bench/compare/run.sh needs, from Debian packages:
#   mariadb-server  mariadbd and mariadb-install-db (the private MariaDB the
#                   harness starts; the system service is NOT started or enabled)
#   mariadb-client  the `mariadb` client (readiness checks, CREATE DATABASE)
#   sysbench        the OLTP workloads (1.0.20 on Debian 12)
#   gnuplot-nox     the PNG plots (about 2 MB installed; python3-matplotlib
#                   would be about 19 MB plus numpy and fonts)
#   python3         parsing the sysbench output and writing the summary
#                   (standard library only)
#
# Idempotent and non-interactive (scripts/install-packages.sh): when every
# package is installed it does nothing; otherwise it runs `apt-get update`
# once and installs the missing ones. Runs as root, or through sudo.
#
# The system MariaDB service: while installing, a policy-rc.d that refuses
# every service start is put in place (unless one exists already, as in Docker
# images, where it does the same), so the package's postinst cannot start
# mariadbd; afterwards the service is stopped and disabled in case an init
# system started it anyway. The harness never uses it.
set -eu

server_was_installed=0
if dpkg-query -W -f='${Status}' mariadb-server 2>/dev/null | grep -q "install ok installed"; then
    server_was_installed=1
fi

"$(dirname "$0")/../../scripts/install-packages.sh" --name install-deps --no-service-start \
    mariadb-server mariadb-client sysbench gnuplot-nox python3

if [ "$server_was_installed" -eq 1 ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

# In case an init system started the service anyway, stop it; and disable it
# (the package enables it; `systemctl disable` also works without a running
# systemd, and update-rc.d disables the SysV links).
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $SUDO systemctl stop mariadb >/dev/null 2>&1 || true
elif command -v service >/dev/null 2>&1; then
    $SUDO service mariadb stop >/dev/null 2>&1 || true
fi
if command -v systemctl >/dev/null 2>&1; then
    $SUDO systemctl disable mariadb >/dev/null 2>&1 || true
fi
if command -v update-rc.d >/dev/null 2>&1; then
    $SUDO update-rc.d mariadb disable >/dev/null 2>&1 || true
fi

