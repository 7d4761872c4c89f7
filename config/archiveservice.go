package config

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tablectl/tablectl/api"
)

// Archive is the archive: section of the file. Its key ship is the table's: send the
// journal's records and signed heads to the floor's archive over MQTT, and say in the
// status how far it is behind (off, the table publishes and subscribes to nothing of the
// archive's). Its keys mqtt, central, db, keys and client_id are the floor's archive's
// (tablectl-floor archive, ArchiveService); tablectl run ignores them, and tablectl-floor archive
// ignores ship.
type Archive struct {
	Ship bool `yaml:"ship"`
	// To are the ids of the archives the table ships to, each on its own topics
	// (api.DefaultArchiveID when empty): the floor's archive, and a standby.
	To             []string `yaml:"to"`
	ArchiveService `yaml:",inline"`
}

// ArchiveService is tablectl-floor archive's settings (docs/archive.md, "Running the
// archive"): the floor's broker it reads the tables' records from, its database and the
// tables' keys.
type ArchiveService struct {
	// ID is the archive's id (api.DefaultArchiveID when empty): it reads the records
	// on archive/<id>/records and writes archive/<id>/held alone.
	ID string `yaml:"id"`
	// MQTT is the floor's broker, with the archive's own user (deploy/mosquitto/acl's
	// "archive-<id>", the default username): url, username, password_file, ca, cert and
	// key, as the table's mqtt.
	MQTT MQTT `yaml:"mqtt"`
	// Central: the broker is a central one; the archive also takes the tables of the
	// casino-wide layout casino/<site>/<pit>/tablectl/v1/... (docs/mqtt.md).
	Central bool `yaml:"central"`
	// DB is the database: a SQLite file's path or a postgres:// URL.
	DB string `yaml:"db"`
	// Keys is the keys file: one line "TABLE-ID PUBLIC-KEY" a table.
	Keys string `yaml:"keys"`
	// ClientID is the archive's MQTT client id, whose session the broker keeps
	// ("tablectl-archive-<id>" when empty).
	ClientID string `yaml:"client_id"`
	// Integrity is the integrity watch's settings (docs/integrity.md, "Settings").
	Integrity ArchiveIntegrity `yaml:"integrity"`
}

// ArchiveIntegrity is the integrity watch's settings (docs/integrity.md, "Settings"):
// each zero field takes the archive's default.
type ArchiveIntegrity struct {
	// Off: the watch keeps no set and raises no alarm.
	Off bool `yaml:"off"`
	// Window is how far apart two sets may be and still be compared (90 days).
	Window time.Duration `yaml:"window"`
	// MinRun is the shortest shared run that is an alarm (11), 6 to 11.
	MinRun int `yaml:"min_run"`
	// Sets is how many sets the weak-shuffle p-values are combined over (10).
	Sets int `yaml:"sets"`
	// ShuffleAlarm is the p-value at or below which a shuffle is an alarm (1e-6).
	ShuffleAlarm float64 `yaml:"shuffle_alarm"`
	// DriftRatio is the raised rate the drift looks for, above 1 (1.25); DriftARL the
	// rounds between false alarms of a table and result, at least 100 (1e6).
	DriftRatio float64 `yaml:"drift_ratio"`
	DriftARL   float64 `yaml:"drift_arl"`
}

// DefaultArchiveService is tablectl-floor archive's settings that the file and the flags
// leave out (WithDefaults fills in those that follow from the id).
func DefaultArchiveService() ArchiveService {
	return ArchiveService{}
}

// WithDefaults fills in what follows from the archive's id: the id itself
// (api.DefaultArchiveID), its broker user "archive-<id>" and its client id
// "tablectl-archive-<id>", where they are not set.
func (c ArchiveService) WithDefaults() ArchiveService {
	if c.ID == "" {
		c.ID = api.DefaultArchiveID
	}
	if c.MQTT.Username == "" {
		c.MQTT.Username = api.ArchiveUserPrefix + c.ID
	}
	if c.ClientID == "" {
		c.ClientID = "tablectl-archive-" + c.ID
	}
	return c
}

// ArchiveFlags are the settings of tablectl-floor archive's command line. Only the flags
// named in Given override the file's archive section (or the defaults).
type ArchiveFlags struct {
	// Given names the flags given, by their names on the command line.
	Given map[string]bool

	MQTT, MQTTUser, MQTTPassword string
	MQTTCA, MQTTCert, MQTTKey    string
	Central                      bool
	ID, DB, Keys, ClientID       string
	LogJSON                      bool
}

// ArchiveRun is what tablectl-floor archive runs with: its settings with the flags applied and
// checked, how it logs, and the MQTT password.
type ArchiveRun struct {
	ArchiveService
	// LogJSON logs as JSON lines (the file's log.json, or --log-json).
	LogJSON bool
	// Password is the MQTT password (ArchivePassword).
	Password string
}

// archiveFlagKeys names the key each of tablectl-floor archive's flags overrides.
var archiveFlagKeys = map[string]string{
	"id":   "archive.id",
	"mqtt": "archive.mqtt.url", "mqtt-user": "archive.mqtt.username", "mqtt-ca": "archive.mqtt.ca",
	"mqtt-cert": "archive.mqtt.cert", "mqtt-key": "archive.mqtt.key", "central": "archive.central",
	"db": "archive.db", "keys": "archive.keys", "client-id": "archive.client_id", "log-json": "log.json",
}

// ResolveArchive reads the configuration file at path ("" for none: the defaults) as
// LoadConsole does (the table's devices need not be on the archive's machine), applies
// tablectl-floor archive's flags over its archive section (ApplyArchiveFlags), and looks up
// the MQTT password (ArchivePassword).
func ResolveArchive(path string, f ArchiveFlags) (ArchiveRun, error) {
	base := Default()
	if path != "" {
		var err error
		if base, err = LoadConsole(path); err != nil {
			return ArchiveRun{}, err
		}
	}
	r, err := ApplyArchiveFlags(base, f)
	if err != nil {
		return ArchiveRun{}, err
	}
	if r.Password, err = r.ArchivePassword(f.MQTTPassword); err != nil {
		return ArchiveRun{}, err
	}
	return r, nil
}

// ApplyArchiveFlags applies the flags given over base's archive section and log
// settings, checks the result as a file's archive section is checked (a fault of a flag
// given named by the flag), and checks that the broker, the database and the keys file
// are known.
func ApplyArchiveFlags(base Config, f ArchiveFlags) (ArchiveRun, error) {
	r := ArchiveRun{ArchiveService: base.Archive.ArchiveService, LogJSON: base.Log.JSON}
	c := &r.ArchiveService
	overrides := map[string]func(){
		"id":        func() { c.ID = f.ID },
		"mqtt":      func() { c.MQTT.URL = f.MQTT },
		"mqtt-user": func() { c.MQTT.Username = f.MQTTUser },
		"mqtt-ca":   func() { c.MQTT.CA = f.MQTTCA },
		"mqtt-cert": func() { c.MQTT.Cert = f.MQTTCert },
		"mqtt-key":  func() { c.MQTT.Key = f.MQTTKey },
		"central":   func() { c.Central = f.Central },
		"db":        func() { c.DB = f.DB },
		"keys":      func() { c.Keys = f.Keys },
		"client-id": func() { c.ClientID = f.ClientID },
		"log-json":  func() { r.LogJSON = f.LogJSON },
	}
	for _, name := range slices.Sorted(maps.Keys(f.Given)) {
		if apply, ok := overrides[name]; ok && f.Given[name] {
			apply()
		}
	}
	*c = c.WithDefaults()
	chk := &file{lines: map[string]int{}}
	chk.checkArchiveService(*c)
	for _, need := range []struct{ key, v, msg string }{
		{"archive.mqtt.url", c.MQTT.URL, "no broker: give --mqtt, or archive.mqtt.url in the configuration file"},
		{"archive.db", c.DB, "no database: give --db (a SQLite file's path or a postgres:// URL), or archive.db in the configuration file"},
		{"archive.keys", c.Keys, "no keys file: give --keys, or archive.keys in the configuration file (one line TABLE-ID PUBLIC-KEY a table)"},
	} {
		if need.v == "" {
			chk.at(need.key, "%s", need.msg)
		}
	}
	if len(chk.errs) == 0 {
		return r, nil
	}
	for _, e := range chk.errs {
		for flag, key := range archiveFlagKeys {
			if f.Given[flag] && e.Key == key {
				e.Key = "--" + flag
			}
		}
	}
	return ArchiveRun{}, chk.errs
}

// ArchivePassword is the archive's MQTT password: flagValue when given, else the first
// line of archive.mqtt.password_file, else the environment's TABLECTL_MQTT_PASSWORD.
func (c *ArchiveService) ArchivePassword(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if c.MQTT.PasswordFile != "" {
		b, err := os.ReadFile(c.MQTT.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("archive.mqtt.password_file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(line, "\r"), nil
	}
	return os.Getenv("TABLECTL_MQTT_PASSWORD"), nil
}

// clientIDPattern is what an MQTT client id of the archive may be.
var clientIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// checkArchiveService checks tablectl-floor archive's settings. A file that leaves them out
// is not faulted: only tablectl-floor archive needs its broker, database and keys
// (ApplyArchiveFlags).
func (f *file) checkArchiveService(c ArchiveService) {
	if c.ID != "" {
		if err := api.CheckArchiveID(c.ID); err != nil {
			f.at("archive.id", "%v", err)
		}
	}
	c = c.WithDefaults()
	m := c.MQTT
	if m.URL == "" {
		for _, k := range []string{"password_file", "ca", "cert", "key"} {
			if f.set("archive.mqtt." + k) {
				f.at("archive.mqtt."+k, "set without archive.mqtt.url")
			}
		}
	} else {
		u, err := url.Parse(m.URL)
		secure := false
		if err != nil || u.Host == "" || !slices.Contains([]string{"tcp", "ssl", "tls", "mqtt", "mqtts", "tcps", "ws", "wss"}, u.Scheme) {
			f.at("archive.mqtt.url", "%q: want tcp://host:1883, ssl://host:8883, ws:// or wss://", m.URL)
		} else {
			secure = slices.Contains([]string{"ssl", "tls", "mqtts", "tcps", "wss"}, u.Scheme)
			if !secure && (m.CA != "" || m.Cert != "" || m.Key != "") {
				f.at("archive.mqtt.url", "%q is not a TLS URL, but ca, cert or key is set: use ssl:// or wss://", m.URL)
			}
		}
	}
	for _, k := range []struct{ key, path string }{{"archive.mqtt.password_file", m.PasswordFile},
		{"archive.mqtt.ca", m.CA}, {"archive.mqtt.cert", m.Cert}, {"archive.mqtt.key", m.Key}, {"archive.keys", c.Keys}} {
		if k.path == "" {
			continue
		}
		if _, err := stat(k.path); err != nil {
			f.at(k.key, "%s does not exist", k.path)
		}
	}
	if m.PasswordFile != "" && m.Username == "" {
		f.at("archive.mqtt.password_file", "set with no archive.mqtt.username")
	}
	f.consolePair("archive.mqtt.cert", m.Cert, "archive.mqtt.key", m.Key, "a client certificate takes both cert and key")
	if c.DB != "" && (strings.HasPrefix(c.DB, "postgres:") || strings.HasPrefix(c.DB, "postgresql:")) {
		if u, err := url.Parse(c.DB); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || !strings.HasPrefix(c.DB, u.Scheme+"://") {
			f.at("archive.db", "want postgres://USER@HOST/DATABASE or a SQLite file's path")
		} else if _, hasPassword := u.User.Password(); hasPassword && f.set("archive.db") {
			f.at("archive.db", "the URL holds a password: keep it out of the file (PGPASSWORD in the service's environment, or a passfile)")
		}
	}
	if !clientIDPattern.MatchString(c.ClientID) {
		f.at("archive.client_id", "%q: want 1 to 64 letters, digits, '.', '_' or '-'", c.ClientID)
	}
	f.checkArchiveIntegrity(c.Integrity)
}

// checkArchiveIntegrity checks the integrity watch's settings: each one set is in its
// range (docs/config.md, archive.integrity).
func (f *file) checkArchiveIntegrity(g ArchiveIntegrity) {
	const k = "archive.integrity."
	if f.set(k+"window") && g.Window < time.Hour {
		f.at(k+"window", "%s: want 1h or more", g.Window)
	}
	if f.set(k+"min_run") && (g.MinRun < 6 || g.MinRun > 11) {
		f.at(k+"min_run", "%d: want 6 to 11 cards (docs/integrity.md, \"The run length\")", g.MinRun)
	}
	if f.set(k+"sets") && (g.Sets < 2 || g.Sets > 1000) {
		f.at(k+"sets", "%d: want 2 to 1000", g.Sets)
	}
	if f.set(k+"shuffle_alarm") && !(g.ShuffleAlarm > 0 && g.ShuffleAlarm < 0.5) {
		f.at(k+"shuffle_alarm", "%g: want a p-value above 0 and below 0.5", g.ShuffleAlarm)
	}
	if f.set(k+"drift_ratio") && !(g.DriftRatio > 1 && g.DriftRatio <= 10) {
		f.at(k+"drift_ratio", "%g: want above 1, at most 10", g.DriftRatio)
	}
	if f.set(k+"drift_arl") && !(g.DriftARL >= 100 && g.DriftARL <= 1e12) {
		f.at(k+"drift_arl", "%g: want 100 to 1e12 rounds", g.DriftARL)
	}
}

// checkArchiveTo checks the ids of the archives a table ships to: each one an archive
// id, none twice.
func (f *file) checkArchiveTo(ids []string) {
	seen := map[string]bool{}
	for _, id := range ids {
		if err := api.CheckArchiveID(id); err != nil {
			f.at("archive.to", "%v", err)
		} else if seen[id] {
			f.at("archive.to", "archive %q is named twice", id)
		}
		seen[id] = true
	}
}
