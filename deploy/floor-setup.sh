#!/bin/bash
# floor-setup.sh: sets up the floor's server from nothing, on Debian 12: Mosquitto with
# the tables' ACL, TLS and passwords; PostgreSQL with the archive's roles; tablectl-floor
# archive and tablectl-floor console. Run it as root in the folder copied from the build
# machine, which holds deploy/, docs/ and the binaries tablectl-floor and tablectl:
#
#   sudo FLOOR_HOST=floor.casino.lan FIRST_USER=SM1 deploy/floor-setup.sh pit3-t11.enroll pit3-t12.enroll
#
# It reads the first console user's password from standard input (its first line). Each
# FILE.enroll is what 'tablectl enroll' printed on a table's Pi (docs/deploy.md).
#
# Its steps are those of docs/deploy.md ("The floor server"), docs/archive.md ("Running
# the archive") and docs/console.md ("Setting it up from nothing"): go generate ./deploy
# writes them there from this file, its comments as the text and its commands as they
# run. Each section below, "## PAGE: TITLE", is one step of PAGE.
#
# A test runs it with other commands in place of the server's own: SYSTEMCTL for
# systemctl, APT_GET for apt-get, AS_POSTGRES for "runuser -u postgres --", FLOOR_BIN
# and BIN for the binaries. The pages show the defaults.
set -euo pipefail
: "${SYSTEMCTL:=systemctl}"
: "${APT_GET:=apt-get}"
: "${AS_POSTGRES:=runuser -u postgres --}"
: "${FLOOR_BIN:=./tablectl-floor}"
: "${BIN:=./tablectl}"
: "${FLOOR_HOST:?give the host name of the floor server, as the tables and browsers reach it: FLOOR_HOST=floor.casino.lan}"
: "${FIRST_USER:?give the first user of the console, a shift manager: FIRST_USER=SM1}"
trap 'echo "floor-setup.sh: line $LINENO failed: $BASH_COMMAND" >&2' ERR
if [ ! -f deploy/floor-setup.sh ] || [ ! -f "$FLOOR_BIN" ] || [ ! -f "$BIN" ]; then
  echo "floor-setup.sh: run it in the folder that holds deploy/, docs/ and the binaries $FLOOR_BIN and $BIN" >&2
  exit 2
fi
if [ -e /etc/mosquitto/tablectl ] || [ -e /etc/tablectl/archive ] || [ -e /etc/tablectl/console ]; then
  echo "floor-setup.sh: this server is set up already (/etc/mosquitto/tablectl, /etc/tablectl/archive or /etc/tablectl/console exists): it sets a floor up from nothing" >&2
  exit 2
fi

## deploy-floor: The binaries and the units
# Install the floor's binary, the archive's and the console's units and the documentation.
# The floor's binary, `tablectl-floor`, runs the archive and the console.
# The table's binary, `tablectl`, goes beside it, for its tools: the broker's ACL below, and the check of a journal exported from the archive.
# The floor server runs no table: it has no `tablectl.service`.
install -m 0755 $FLOOR_BIN /usr/local/bin/tablectl-floor
install -m 0755 $BIN /usr/local/bin/tablectl
install -m 0644 deploy/tablectl-archive.service deploy/tablectl-console.service /etc/systemd/system/
install -d -m 0755 /usr/local/share/doc/tablectl /etc/tablectl
install -m 0644 docs/*.md /usr/local/share/doc/tablectl/
$SYSTEMCTL daemon-reload

## deploy-floor: The floor's certificate authority
# The floor's own CA signs the broker's certificate and the console's.
# The tables, the archive, the console and the pit's browsers trust it.
# Its key stays in `/etc/tablectl/ca`, readable by root alone.
$APT_GET install -y openssl
install -d -m 0700 /etc/tablectl/ca
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
  -subj "/CN=tablectl floor CA ($FLOOR_HOST)" -keyout /etc/tablectl/ca/ca.key -out /etc/tablectl/ca/ca.crt
# The broker's certificate names the floor server, and 127.0.0.1 for the archive and the console beside it.
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$FLOOR_HOST" \
  -addext "subjectAltName=DNS:$FLOOR_HOST,DNS:localhost,IP:127.0.0.1" -addext "extendedKeyUsage=serverAuth" \
  -keyout /etc/tablectl/ca/broker.key -out /etc/tablectl/ca/broker.csr
openssl x509 -req -in /etc/tablectl/ca/broker.csr -CA /etc/tablectl/ca/ca.crt -CAkey /etc/tablectl/ca/ca.key \
  -CAcreateserial -copy_extensions copy -days 825 -out /etc/tablectl/ca/broker.crt

## deploy-floor: Mosquitto
# Install Debian's Mosquitto with `deploy/mosquitto/tablectl.conf`.
# It listens on 127.0.0.1:1883, and over TLS on 8883 (MQTT) and 8884 (WebSocket).
$APT_GET install -y mosquitto mosquitto-clients
install -d -m 0750 -g mosquitto /etc/mosquitto/tablectl
install -m 0644 deploy/mosquitto/tablectl.conf /etc/mosquitto/conf.d/tablectl.conf
# The ACL comes from `tablectl mosquitto-acl`: each table writes its own topics alone, each service user its own.
# A second archive's id goes to it too (`--archive floor --archive standby`).
tablectl mosquitto-acl | install -m 0640 -g mosquitto /dev/stdin /etc/mosquitto/tablectl/acl
# The password file starts empty: the archive, the console and each table add their user below.
install -m 0640 -g mosquitto /dev/null /etc/mosquitto/tablectl/passwd
install -m 0644 /etc/tablectl/ca/ca.crt /etc/mosquitto/tablectl/ca.crt
install -m 0644 /etc/tablectl/ca/broker.crt /etc/mosquitto/tablectl/server.crt
install -m 0640 -g mosquitto /etc/tablectl/ca/broker.key /etc/mosquitto/tablectl/server.key
$SYSTEMCTL restart mosquitto

## archive: The archive's account and directory
# The archive runs as its own system user, which reads `/etc/tablectl/archive`.
useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin tablectl-archive
install -d -m 0750 -g tablectl-archive /etc/tablectl/archive

## archive: The database
# Install PostgreSQL, and make the archive's role and the database it owns.
# The archive creates and migrates its tables itself, so its role needs no other grant.
# The password is random; the archive reads it from its passfile, never from a URL.
$APT_GET install -y postgresql
pw=$(openssl rand -hex 24)
printf "CREATE ROLE tablectl_archive LOGIN PASSWORD '%s';\n" "$pw" | $AS_POSTGRES psql -v ON_ERROR_STOP=1 --quiet
$AS_POSTGRES createdb --owner tablectl_archive tablectl_archive
printf '127.0.0.1:*:tablectl_archive:tablectl_archive:%s\n' "$pw" |
  install -m 0600 -o tablectl-archive -g tablectl-archive /dev/stdin /etc/tablectl/archive/pgpass
# The unit reads `/etc/tablectl/archive.env`: it names the passfile.
echo PGPASSFILE=/etc/tablectl/archive/pgpass | install -m 0600 /dev/stdin /etc/tablectl/archive.env

## archive: The readers' role
# Surveillance reads the archive with a role that can only read (`tablectl-floor report --archive`, "Reading a table back").
$AS_POSTGRES psql -v ON_ERROR_STOP=1 tablectl_archive <<'SQL'
CREATE ROLE surveillance LOGIN;
GRANT CONNECT ON DATABASE tablectl_archive TO surveillance;
GRANT USAGE ON SCHEMA public TO surveillance;
ALTER DEFAULT PRIVILEGES FOR ROLE tablectl_archive IN SCHEMA public GRANT SELECT ON TABLES TO surveillance;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO surveillance;
SQL
# Its password goes to a passfile of root's. Give a copy to each person of surveillance, mode 0600.
pw=$(openssl rand -hex 24)
printf "ALTER ROLE surveillance PASSWORD '%s';\n" "$pw" | $AS_POSTGRES psql -v ON_ERROR_STOP=1 --quiet
printf '127.0.0.1:*:tablectl_archive:surveillance:%s\n' "$pw" | install -m 0600 /dev/stdin /etc/tablectl/surveillance.pgpass

## archive: The archive's broker user
# The ACL gives the user `archive-floor` every table's `archive/floor/records` and `archive/floor/held`, and nothing else.
# Its password is random, in the archive's `mqtt-password` and in Mosquitto's password file.
openssl rand -hex 24 | install -m 0640 -g tablectl-archive /dev/stdin /etc/tablectl/archive/mqtt-password
mosquitto_passwd -b /etc/mosquitto/tablectl/passwd archive-floor "$(cat /etc/tablectl/archive/mqtt-password)"
install -m 0644 /etc/tablectl/ca/ca.crt /etc/tablectl/archive/ca.crt
$SYSTEMCTL reload mosquitto

## archive: The keys file
# The keys file starts empty. Each table's line comes with the table ("The tables", docs/deploy.md).
install -m 0640 -g tablectl-archive /dev/null /etc/tablectl/archive/keys

## archive: The configuration and the service
# `deploy/tablectl-archive.yaml` names the files above, the broker at `ssl://127.0.0.1:8883` and the database at `127.0.0.1`.
# The check runs as the service's user, so it reads what the service reads.
install -m 0640 -g tablectl-archive deploy/tablectl-archive.yaml /etc/tablectl/archive/archive.yaml
runuser -u tablectl-archive -- tablectl-floor check-config /etc/tablectl/archive/archive.yaml
$SYSTEMCTL enable --now tablectl-archive

## console: The console's account and directory
useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin tablectl-console
install -d -m 0750 -g tablectl-console /etc/tablectl/console

## console: The console's broker user
# The ACL gives the user `console` every table's topics and the commands of the four roles.
# Its password is random, in the console's `mqtt-password` and in Mosquitto's password file.
openssl rand -hex 24 | install -m 0640 -g tablectl-console /dev/stdin /etc/tablectl/console/mqtt-password
mosquitto_passwd -b /etc/mosquitto/tablectl/passwd console "$(cat /etc/tablectl/console/mqtt-password)"
install -m 0644 /etc/tablectl/ca/ca.crt /etc/tablectl/console/ca.crt
$SYSTEMCTL reload mosquitto

## console: The users file
# The first person is a shift manager, who reads History and gives every command.
# `user add` reads the password from the first line of standard input, at least 10 characters.
tablectl-floor console user add "$FIRST_USER" --role shift_manager --users /etc/tablectl/console/users.json
chgrp tablectl-console /etc/tablectl/console/users.json
chmod 0640 /etc/tablectl/console/users.json

## console: TLS for the pages
# The pages' certificate names the floor server, signed by the floor's CA.
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$FLOOR_HOST" \
  -addext "subjectAltName=DNS:$FLOOR_HOST,DNS:localhost,IP:127.0.0.1" -addext "extendedKeyUsage=serverAuth" \
  -keyout /etc/tablectl/ca/console.key -out /etc/tablectl/ca/console.csr
openssl x509 -req -in /etc/tablectl/ca/console.csr -CA /etc/tablectl/ca/ca.crt -CAkey /etc/tablectl/ca/ca.key \
  -CAcreateserial -copy_extensions copy -days 825 -out /etc/tablectl/ca/console.crt
install -m 0644 /etc/tablectl/ca/console.crt /etc/tablectl/console/https.crt
install -m 0640 -g tablectl-console /etc/tablectl/ca/console.key /etc/tablectl/console/https.key

## console: History's role
# History reads the archive with a role that can only read, as surveillance does.
$AS_POSTGRES psql -v ON_ERROR_STOP=1 tablectl_archive <<'SQL'
CREATE ROLE console_history LOGIN;
GRANT CONNECT ON DATABASE tablectl_archive TO console_history;
GRANT USAGE ON SCHEMA public TO console_history;
ALTER DEFAULT PRIVILEGES FOR ROLE tablectl_archive IN SCHEMA public GRANT SELECT ON TABLES TO console_history;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO console_history;
SQL
# Its password goes to the console's passfile; the unit reads `/etc/tablectl/console.env`, which names it.
pw=$(openssl rand -hex 24)
printf "ALTER ROLE console_history PASSWORD '%s';\n" "$pw" | $AS_POSTGRES psql -v ON_ERROR_STOP=1 --quiet
printf '127.0.0.1:*:tablectl_archive:console_history:%s\n' "$pw" |
  install -m 0600 -o tablectl-console -g tablectl-console /dev/stdin /etc/tablectl/console/pgpass
echo PGPASSFILE=/etc/tablectl/console/pgpass | install -m 0600 /dev/stdin /etc/tablectl/console.env

## console: The configuration and the service
# `deploy/tablectl-console.yaml` names the files above, and serves HTTPS on port 8443.
# Its `hosts` takes the floor server's name.
sed "s/pit-console\.casino\.lan/$FLOOR_HOST/" deploy/tablectl-console.yaml |
  install -m 0640 -g tablectl-console /dev/stdin /etc/tablectl/console/console.yaml
runuser -u tablectl-console -- tablectl-floor check-config /etc/tablectl/console/console.yaml
$SYSTEMCTL enable --now tablectl-console

## deploy-tables: The tables
# Each table was enrolled on its Pi, and what enroll printed kept in a file ("Adding a table").
# `deploy/floor-add-table.sh` adds each to the broker and the archive.
# The script takes the files as its arguments. By hand, run `deploy/floor-add-table.sh pit3-t11.enroll` for each.
for enrolled in "$@"; do
  deploy/floor-add-table.sh "$enrolled"
done
