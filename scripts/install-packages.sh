#!/bin/sh
# Installs Debian packages for Larch's tests and benchmarks, the one way every
# project script does it: non-interactive and idempotent (packages already
# installed are left alone; otherwise one `apt-get update` and an install of
# the missing ones, without recommended packages), as root or through sudo.
#
#   scripts/install-packages.sh [--name NAME] [--no-service-start] PACKAGE...
#
# --name NAME         prefix of the messages (the calling script's name)
# --no-service-start  while installing, a policy-rc.d refusing every service
#                     start is put in place (unless one exists already, as in
#                     Docker images), so no package's postinst starts a daemon
#
# Exit status: 0 when every package is installed afterwards, 1 when it could
# not install (no root or sudo, no apt-get, apt-get failed).
set -eu

name=install-packages
no_start=0
while [ $# -gt 0 ]; do
    case "$1" in
        --name) name="$2"; shift 2 ;;
        --no-service-start) no_start=1; shift ;;
        --) shift; break ;;
        -*) echo "$name: unknown option $1" >&2; exit 1 ;;
        *) break ;;
    esac
done
PACKAGES="$*"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "$name: already installed: $PACKAGES"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "$name: needs root or sudo to install:$missing" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "$name: apt-get not found; install these packages by hand:$missing" >&2
    exit 1
fi

POLICY=/usr/sbin/policy-rc.d
our_policy=0
remove_policy() {
    if [ "$our_policy" -eq 1 ]; then
        $SUDO rm -f "$POLICY"
        our_policy=0
    fi
}
if [ "$no_start" -eq 1 ] && [ ! -e "$POLICY" ]; then
    # exit 101 = "action forbidden by policy": invoke-rc.d starts nothing.
    $SUDO sh -c "printf '#!/bin/sh\n# scripts/install-packages.sh: no service starts while installing\nexit 101\n' > $POLICY && chmod 755 $POLICY"
    our_policy=1
    trap remove_policy EXIT INT TERM
fi

echo "$name: installing:$missing"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
remove_policy
echo "$name: installed:$missing"
