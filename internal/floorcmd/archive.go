package floorcmd

import (
	"context"
	"flag"
	"fmt"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/archive/service"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/internal/cli"
)

const archiveUsage = `usage: tablectl-floor archive --mqtt URL --db DB --keys FILE [flags]
       tablectl-floor archive --config FILE [flags]

The floor's archive takes each table's journal records and signed heads from the
broker (tablectl/v1/<table>/archive/records), checks them against what it holds and
the table's key, and stores them in DB: a postgres:// URL, or a SQLite file's path. It
publishes, retained, how far it holds each table (tablectl/v1/<table>/archive/held); a
table sends again from there. A record that does not chain, a rollback or a bad
signature is not stored: it is kept apart and raised as an alarm, in the log and in
archive/held.

Setting it up (docs/archive.md, "Running the archive", has every step):
  1. the broker user: deploy/mosquitto/acl has "user archive"; give it a password
     (mosquitto_passwd /etc/mosquitto/tablectl/passwd archive) and pass it in
     TABLECTL_MQTT_PASSWORD or the file's archive.mqtt.password_file;
  2. the keys file: one line TABLE-ID PUBLIC-KEY a table, the key as
     'tablectl key show --journal DIR' prints it on the table;
  3. the database: PostgreSQL with a role that owns it (its password in PGPASSWORD or a
     passfile, not in the URL of the file), or a SQLite file for one table or a trial;
  4. run it: tablectl-floor archive --mqtt ssl://broker:8883 --mqtt-ca ca.crt
     --db postgres://tablectl_archive@db.casino.lan/tablectl_archive --keys keys.txt
     (--central on a central broker).

The configuration file: every flag but --mqtt-password has a key in the file's archive
section (--mqtt is archive.mqtt.url, --db archive.db, --keys archive.keys, --log-json the
file's log.json; docs/config.md lists them), read as strictly as a table's file. A flag
given wins over the file. deploy/tablectl-archive.yaml is an example, and
deploy/tablectl-archive.service runs 'tablectl-floor archive --config
/etc/tablectl/archive/archive.yaml' under systemd; 'tablectl-floor check-config FILE' checks
the file. SIGHUP (systemctl reload) reads the keys file again: a table added is stored
from its next batch, the batches of a table taken away are counted as an unknown
table's, and what is held of it stays. SIGTERM stops it: a batch being stored then is
stored again at the next start. It logs what the run stored as it stops, and what it
took each minute it took anything.`

// runArchive runs the floor's archive until ctx ends (SIGTERM), reading its keys file
// again at each signal of io.Reload (SIGHUP).
func runArchive(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("archive", io)
	fs.Usage = func() {
		fmt.Fprintln(io.Err, archiveUsage+"\n\nflags:")
		fs.PrintDefaults()
	}
	f, configFile := archiveFlags(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("archive: unexpected argument %q", fs.Arg(0))
	}
	f.Given = cli.Given(fs)
	cfg, err := config.ResolveArchive(*configFile, *f)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	log := cli.NewLogger(cfg.LogJSON, io.Err)
	keys, err := archive.ReadKeys(cfg.Keys)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	if len(keys) == 0 {
		log.Warn("the keys file names no table: every batch is counted as of an unknown table, none stored", "keys", cfg.Keys)
	}
	db, err := archive.OpenDB(ctx, cfg.DB)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	defer db.Close()
	if err := db.Claim(ctx, cfg.ID); err != nil {
		return err
	}
	a := archive.New(db, keys, archive.Options{Logger: log, Integrity: integrityOptions(cfg.Integrity)})
	svc, err := service.New(a, service.Options{Broker: cfg.MQTT.URL, Username: cfg.MQTT.Username, Password: cfg.Password,
		CAFile: cfg.MQTT.CA, CertFile: cfg.MQTT.Cert, KeyFile: cfg.MQTT.Key, Central: cfg.Central, ClientID: cfg.ClientID,
		Archive: cfg.ID, Logger: log})
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	// SIGHUP reads the keys file again: the tables added are stored from their next
	// batch, those taken away are counted as unknown tables.
	stopReload := cli.OnReload(io.Reload, func() {
		nk, err := archive.ReadKeys(cfg.Keys)
		if err != nil {
			log.Error("keys file not reloaded: the tables of before are kept", "keys", cfg.Keys, "error", err)
			return
		}
		added, removed := a.SetKeys(nk)
		log.Info("keys file reloaded", "keys", cfg.Keys, "tables", len(nk), "added", added, "removed", removed)
	})
	defer stopReload()
	fmt.Fprintf(io.Out, "archive %s: %d %s in %s, database %s (%s), MQTT %s as %s\n", cfg.ID, len(keys), cli.Plural(len(keys), "table", "tables"), cfg.Keys, archive.Redact(cfg.DB), db.Engine(), cfg.MQTT.URL, cfg.MQTT.Username)
	return svc.Run(ctx)
}

// archiveFlags defines tablectl-floor archive's flags: those config.ArchiveFlags carries, with
// the defaults of the file's archive section, and the configuration file's.
func archiveFlags(fs *flag.FlagSet) (f *config.ArchiveFlags, configFile *string) {
	f = &config.ArchiveFlags{}
	def := config.DefaultArchiveService()
	configFile = fs.String("config", "", "a configuration file whose archive section (and log) the archive takes (docs/config.md); the flags given override it")
	fs.StringVar(&f.MQTT, "mqtt", "", "the floor's MQTT broker, tcp://host:1883 or ssl://host:8883 (required here or in the file)")
	fs.StringVar(&f.ID, "id", "", "the archive's id: it takes the records on archive/<id>/records and publishes archive/<id>/held (default "+api.DefaultArchiveID+")")
	fs.StringVar(&f.MQTTUser, "mqtt-user", def.MQTT.Username, "MQTT username (the archive's user of deploy/mosquitto/acl; default archive-<id>)")
	fs.StringVar(&f.MQTTPassword, "mqtt-password", "", "MQTT password (default: the file's archive.mqtt.password_file, or TABLECTL_MQTT_PASSWORD)")
	fs.StringVar(&f.MQTTCA, "mqtt-ca", "", "CA certificates (PEM) that sign the broker's certificate")
	fs.StringVar(&f.MQTTCert, "mqtt-cert", "", "client certificate (PEM)")
	fs.StringVar(&f.MQTTKey, "mqtt-key", "", "client certificate's key (PEM)")
	fs.BoolVar(&f.Central, "central", false, "the broker is a central one: also take casino/<site>/<pit>/tablectl/v1/... (docs/mqtt.md)")
	fs.StringVar(&f.DB, "db", "", "the database: a postgres:// URL or a SQLite file's path (required here or in the file)")
	fs.StringVar(&f.Keys, "keys", "", "the keys file: one line TABLE-ID PUBLIC-KEY a table (required here or in the file)")
	fs.StringVar(&f.ClientID, "client-id", def.ClientID, "the MQTT client id, whose session the broker keeps (default tablectl-archive-<id>)")
	fs.BoolVar(&f.LogJSON, "log-json", false, "log as JSON lines")
	return f, configFile
}

// integrityOptions are the archive's integrity settings of the file's
// archive.integrity.
func integrityOptions(g config.ArchiveIntegrity) archive.IntegrityOptions {
	return archive.IntegrityOptions{Off: g.Off, Window: g.Window, MinRun: g.MinRun, Sets: g.Sets, ShuffleAlarm: g.ShuffleAlarm,
		DriftRatio: g.DriftRatio, DriftARL: g.DriftARL}
}
