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
# Idempotent and non-interactive: when every package is installed it does
# nothing; otherwise it runs `apt-get update` once and installs the missing
# ones. Runs as root, or through sudo.
#
# The system MariaDB service: while installing, a policy-rc.d that refuses
# every service start is put in place (unless one exists already, as in Docker
# images, where it does the same), so the package's postinst cannot start
# mariadbd; afterwards the service is stopped and disabled in case an init
# system started it anyway. The harness never uses it.
set -eu

PACKAGES="mariadb-server mariadb-client sysbench gnuplot-nox python3"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-deps: needs root or sudo" >&2
    exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: apt-get not found; install these by hand: $PACKAGES" >&2
    exit 1
fi

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "install-deps: already installed: $PACKAGES"
    exit 0
fi

POLICY=/usr/sbin/policy-rc.d
our_policy=0
if [ ! -e "$POLICY" ]; then
    # exit 101 = "action forbidden by policy": invoke-rc.d starts nothing.
    $SUDO sh -c "printf '#!/bin/sh\n# bench/compare/install-deps.sh: no service starts while installing\nexit 101\n' > $POLICY && chmod 755 $POLICY"
    our_policy=1
fi
remove_policy() {
    if [ "$our_policy" -eq 1 ]; then
        $SUDO rm -f "$POLICY"
        our_policy=0
    fi
}
trap remove_policy EXIT INT TERM

echo "install-deps: installing:$missing"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing

remove_policy

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

echo "install-deps: installed:$missing"
