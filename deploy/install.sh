#!/bin/sh
# install.sh: installs tablectl on Raspberry Pi OS (Debian 12) from a built binary, the
# table's (./cmd/tablectl). The floor's binary, tablectl-floor, goes on the floor's server
# (floor-setup.sh), never on a table.
#
#   sudo deploy/install.sh ./tablectl-arm64
#
# It creates the tablectl system user (groups dialout and gpio), installs the binary,
# the systemd unit, the udev rules and the documentation, writes the configuration
# /etc/tablectl/tablectl.yaml and /etc/tablectl/tablectl.env from the examples only when
# there are none, and enables the service. Run it again to upgrade: it changes only what differs and never touches the
# table's settings or journal. docs/deploy.md walks through it.
#
# DESTDIR=/some/dir installs the files under that directory and leaves users, udev and
# systemd alone (for packaging and for checking what it installs).
#
# An existing tablectl account is used only if it is a system account (not root, a uid
# no higher than SYS_UID_MAX of /etc/login.defs) with no login shell (nologin or false):
# the service runs as it, and an account someone can log in to, or that another program
# owns, would share the table's journal and devices. Otherwise install.sh says what is
# wrong and how to put it right, and stops before changing anything.
# TABLECTL_CHECK_ACCOUNT=1 checks the account with DESTDIR too.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-}
if [ -z "$bin" ] || [ ! -f "$bin" ]; then
  echo "usage: $0 TABLECTL-BINARY   (build one with the commands in README.md, 'Building for the Raspberry Pi')" >&2
  exit 2
fi
root=${DESTDIR:-}
if [ -z "$root" ] && [ "$(id -u)" -ne 0 ]; then
  echo "$0: run as root (sudo), or set DESTDIR" >&2
  exit 2
fi

say() { echo "install.sh: $*"; }

# check_account stops the install when an existing tablectl account is not a system
# account with no login shell.
check_account() {
  entry=$(getent passwd tablectl) || return 0 # none yet: created below
  uid=$(echo "$entry" | cut -d: -f3)
  shell=$(echo "$entry" | cut -d: -f7)
  sys_max=$(awk '$1 == "SYS_UID_MAX" { print $2 }' /etc/login.defs 2>/dev/null)
  sys_max=${sys_max:-999}
  problems=""
  if [ "$uid" -eq 0 ]; then
    problems="it is root (uid 0)"
  elif [ "$uid" -gt "$sys_max" ]; then
    problems="uid $uid is not a system account's (at most $sys_max)"
  fi
  case "$shell" in
    */nologin | */false) ;;
    *) problems="${problems:+$problems; }its shell ${shell:-(none: /bin/sh)} lets it log in" ;;
  esac
  if [ -n "$problems" ]; then
    echo "install.sh: the existing account tablectl is not a system account without a login shell: $problems." >&2
    echo "install.sh: the service runs as tablectl and owns the table's journal and devices; nothing was changed." >&2
    echo "install.sh: make it one ('usermod --shell /usr/sbin/nologin tablectl', and a uid at most $sys_max), or remove it ('userdel tablectl') so install.sh creates it, then run install.sh again." >&2
    exit 1
  fi
}

if [ -z "$root" ] || [ "${TABLECTL_CHECK_ACCOUNT:-}" = 1 ]; then
  check_account
fi

# put SRC DEST MODE: installs SRC at DEST when DEST is missing or differs.
put() {
  if [ -f "$2" ] && cmp -s "$1" "$2"; then
    return 0
  fi
  install -D -m "$3" "$1" "$2"
  say "installed $2"
}

if [ -z "$root" ]; then
  getent group gpio >/dev/null || { groupadd --system gpio; say "created group gpio"; }
  if ! id tablectl >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/tablectl --no-create-home --shell /usr/sbin/nologin \
      --user-group --groups dialout,gpio tablectl
    say "created user tablectl"
  else
    usermod --append --groups dialout,gpio tablectl
  fi
fi

put "$bin" "$root/usr/local/bin/tablectl" 0755
put "$here/tablectl.service" "$root/etc/systemd/system/tablectl.service" 0644
put "$here/tablectl-verify.service" "$root/etc/systemd/system/tablectl-verify.service" 0644
put "$here/tablectl-verify.timer" "$root/etc/systemd/system/tablectl-verify.timer" 0644
put "$here/99-tablectl.rules" "$root/etc/udev/rules.d/99-tablectl.rules" 0644
put "$here/kiosk.html" "$root/usr/local/share/tablectl/kiosk.html" 0644
for doc in "$here"/../docs/*.md; do
  put "$doc" "$root/usr/local/share/doc/tablectl/$(basename "$doc")" 0644
done
install -d -m 0750 "$root/etc/tablectl"
if [ ! -e "$root/etc/tablectl/tablectl.yaml" ]; then
  install -m 0640 "$here/tablectl.yaml" "$root/etc/tablectl/tablectl.yaml"
  say "wrote $root/etc/tablectl/tablectl.yaml: set this table's settings in it (docs/config.md)"
fi
if [ ! -e "$root/etc/tablectl/tablectl.env" ]; then
  install -m 0640 "$here/tablectl.env.example" "$root/etc/tablectl/tablectl.env"
  say "wrote $root/etc/tablectl/tablectl.env"
fi

if [ -z "$root" ]; then
  chgrp tablectl /etc/tablectl /etc/tablectl/tablectl.yaml /etc/tablectl/tablectl.env
  udevadm control --reload-rules
  udevadm trigger --subsystem-match=tty --subsystem-match=gpio
  if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl enable tablectl.service >/dev/null
    systemctl enable --now tablectl-verify.timer >/dev/null
    say "enabled tablectl.service: check the settings with 'tablectl check-config /etc/tablectl/tablectl.yaml', then 'systemctl start tablectl'"
    if systemctl is-active --quiet tablectl.service; then
      systemctl restart tablectl.service
      say "restarted tablectl.service"
    fi
  fi
fi
say "done"
