#!/bin/bash
# floor-add-table.sh: adds an enrolled table to the floor's server: the table's key to
# the archive's keys file, its broker user to Mosquitto's password file, then reloads
# both. Run it as root, with the file that holds what 'tablectl enroll' printed on the
# table's Pi (docs/deploy.md, "Adding a table"):
#
#   sudo deploy/floor-add-table.sh pit3-t12.enroll
#
# The file holds the password's hash, never the password. Adding a table again replaces
# its broker user's password and keeps its keys, old and new.
#
# docs/deploy.md shows its steps (go generate ./deploy). A test runs it with SYSTEMCTL
# in place of systemctl.
set -euo pipefail
: "${SYSTEMCTL:=systemctl}"
trap 'echo "floor-add-table.sh: line $LINENO failed: $BASH_COMMAND" >&2' ERR
enrolled=${1:?usage: floor-add-table.sh FILE, what tablectl enroll printed on the Pi of the table}
if ! head -1 "$enrolled" | grep -q '^table ' || ! grep -q ' ed25519:' "$enrolled" || ! grep -q ':[$]7[$]' "$enrolled"; then
  echo "floor-add-table.sh: $enrolled is not what tablectl enroll printed without --mqtt-passwd: it wants the lines 'table ID', 'ID ed25519:...' and 'ID:\$7\$...'" >&2
  exit 2
fi

## deploy-add:
# The file's first line names the table: `table pit3-t12`.
table=$(sed -n '1s/^table //p' "$enrolled")
# The archive's line is the table's id and its key. One already there is kept.
key=$(awk -v t="$table" '$1 == t && $2 ~ /^ed25519:/' "$enrolled")
grep -qxF "$key" /etc/tablectl/archive/keys || echo "$key" >>/etc/tablectl/archive/keys
# The broker's line is the table's id and its password's hash. It replaces any line of the table.
hash=$(awk -F: -v t="$table" '$1 == t && $2 ~ /^[$]7[$]/' "$enrolled")
awk -F: -v t="$table" '$1 != t' /etc/mosquitto/tablectl/passwd >/etc/mosquitto/tablectl/passwd.new
echo "$hash" >>/etc/mosquitto/tablectl/passwd.new
install -m 0640 -g mosquitto /etc/mosquitto/tablectl/passwd.new /etc/mosquitto/tablectl/passwd
rm /etc/mosquitto/tablectl/passwd.new
# The broker and the archive read their files again, and serve on.
$SYSTEMCTL reload mosquitto
$SYSTEMCTL reload tablectl-archive
