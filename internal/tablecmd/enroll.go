package tablecmd

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/mqttpasswd"
	"github.com/tablectl/tablectl/journal"
)

const enrollUsage = `usage: tablectl enroll --table ID --journal DIR [--key FILE] [--mqtt-passwd FILE] [--password-file FILE]

Adds a table to the floor. Each table is its own user of the broker, its table id, and
signs its journal with its own key. enroll:

  - checks the table id (docs/config.md, "table");
  - makes the table's signing key, DIR.key beside --journal DIR (or --key), mode 0600,
    unless it exists: an existing key is kept and reused, never replaced;
  - makes a random password for the table's broker user;
  - writes it to --password-file (mode 0600), the table's mqtt.password_file;
  - adds the user ID to Mosquitto's password file --mqtt-passwd, hashed as
    mosquitto_passwd hashes it, or replaces its password there;
  - prints the keys file line of the floor's archive ("ID ed25519:..."), and, without
    --mqtt-passwd, the line for the broker's password file.

Enrolling a table again gives it a new password, and says so. Run as root, a file
enroll makes is given the owner and group of its directory (/var/lib/tablectl is the
user tablectl's); a file it replaces keeps its own.`

// runEnroll runs tablectl enroll.
func runEnroll(_ context.Context, args []string, io cli.Stdio) error {
	flags := newFlagSet("enroll", io)
	flags.Usage = func() { fmt.Fprintln(io.Err, enrollUsage) }
	table := flags.String("table", "", "the table's id: its topics' level and its broker user")
	journalDir := flags.String("journal", "", "the table's journal directory; its key is beside it, DIR.key")
	keyFile := flags.String("key", "", "the table's private key file, instead of DIR.key beside --journal")
	mqttPasswd := flags.String("mqtt-passwd", "", "Mosquitto's password file, to add the table's user to (/etc/mosquitto/tablectl/passwd)")
	passwordFile := flags.String("password-file", "", "the file the table reads its broker password from (its mqtt.password_file)")
	if err := cli.ParseFlags(flags, args); err != nil {
		return err
	}
	keyPath := *keyFile
	switch {
	case flags.NArg() != 0:
		return fmt.Errorf("enroll: unexpected argument %q", flags.Arg(0))
	case *table == "":
		return errors.New("enroll: give the table's id, --table ID")
	case keyPath == "" && *journalDir == "":
		return errors.New("enroll: give --journal DIR (the key is DIR.key beside it) or --key FILE")
	case keyPath == "":
		if old, ok := oldKeyOnly(*journalDir); ok {
			return fmt.Errorf("enroll: the key of an earlier version is at %s, which every journal of that directory shares: if it is this table's, move it (mv %s %s) and enroll again",
				old, old, journal.DefaultKeyPath(*journalDir))
		}
		keyPath = journal.DefaultKeyPath(*journalDir)
	}
	if err := config.CheckTableID(*table); err != nil {
		return fmt.Errorf("enroll: table: %w", err)
	}

	key, created, err := journal.LoadOrCreateKey(keyPath)
	if err != nil {
		return fmt.Errorf("enroll: %w", err)
	}
	if created {
		if err := ownLikeDir(keyPath); err != nil {
			return fmt.Errorf("enroll: table key %s: %w", keyPath, err)
		}
	}
	password, err := mqttpasswd.NewPassword()
	if err != nil {
		return fmt.Errorf("enroll: %w", err)
	}
	hash, err := mqttpasswd.Hash(password)
	if err != nil {
		return fmt.Errorf("enroll: %w", err)
	}

	// Both files are written beside their places first, then renamed into them: a
	// fault writing either leaves both as they were.
	var files []*stagedFile
	defer func() {
		for _, f := range files {
			f.abort()
		}
	}()
	pwReplaced, usersReplaced := false, false
	if *passwordFile != "" {
		_, err := os.Stat(*passwordFile)
		pwReplaced = err == nil
		f, err := stage(*passwordFile, []byte(password+"\n"), 0o600, false)
		if err != nil {
			return fmt.Errorf("enroll: password file: %w", err)
		}
		files = append(files, f)
	}
	if *mqttPasswd != "" {
		text, err := os.ReadFile(*mqttPasswd)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("enroll: Mosquitto's password file: %w", err)
		}
		var out []byte
		if out, usersReplaced, err = mqttpasswd.SetLine(text, *table, hash); err != nil {
			return fmt.Errorf("enroll: %w", err)
		}
		f, err := stage(*mqttPasswd, out, 0o640, true)
		if err != nil {
			return fmt.Errorf("enroll: Mosquitto's password file: %w", err)
		}
		files = append(files, f)
	}
	for len(files) > 0 {
		if err := files[0].commit(); err != nil {
			return fmt.Errorf("enroll: %w", err)
		}
		files = files[1:]
	}

	w := io.Out
	fmt.Fprintf(w, "table %s\n", *table)
	if created {
		fmt.Fprintf(w, "  signing key: %s, made (mode 0600)\n", keyPath)
	} else {
		fmt.Fprintf(w, "  signing key: %s, kept: it existed, and the table goes on signing with it\n", keyPath)
	}
	switch {
	case *passwordFile != "" && pwReplaced:
		fmt.Fprintf(w, "  broker password: replaced in %s (mode 0600): the table's old password no longer logs in\n", *passwordFile)
	case *passwordFile != "":
		fmt.Fprintf(w, "  broker password: written to %s (mode 0600): the table's mqtt.password_file\n", *passwordFile)
	}
	switch {
	case *mqttPasswd != "" && usersReplaced:
		fmt.Fprintf(w, "  broker user %s: was in %s already: its password is replaced; reload Mosquitto\n", *table, *mqttPasswd)
	case *mqttPasswd != "":
		fmt.Fprintf(w, "  broker user %s: added to %s; reload Mosquitto\n", *table, *mqttPasswd)
	}
	fmt.Fprintln(w, "The archive's keys file (archive.keys) takes this line:")
	fmt.Fprintf(w, "%s %s\n", *table, journal.PublicKeyString(key.Public().(ed25519.PublicKey)))
	if *mqttPasswd == "" {
		if !created {
			fmt.Fprintf(w, "The table's key existed: it was enrolled before. Its password below is new; the broker takes it once its line replaces the table's old one.\n")
		}
		fmt.Fprintln(w, "The broker's password file takes this line (it replaces any line of the user), then reload Mosquitto:")
		fmt.Fprintf(w, "%s:%s\n", *table, hash)
	}
	if *passwordFile == "" {
		fmt.Fprintln(w, "The table's broker password, the first line of its mqtt.password_file (mode 0600):")
		fmt.Fprintln(w, password)
	}
	return nil
}

// stagedFile is a file's new content written beside it, put in its place by commit.
type stagedFile struct {
	tmp, path string
}

// stage writes data to a new file beside path, with mode; with keepMode, a file already
// at path keeps its mode instead. Run as root, the file gets the owner and group of the
// file at path, or, when there is none, of path's directory.
func stage(path string, data []byte, mode os.FileMode, keepMode bool) (*stagedFile, error) {
	like := path
	st, err := os.Stat(path)
	switch {
	case err == nil && keepMode:
		mode = st.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		like = dirOf(path)
	case err != nil:
		return nil, err
	}
	f, err := os.CreateTemp(dirOf(path), ".tablectl-enroll-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	s := &stagedFile{tmp: f.Name(), path: path}
	err = f.Chmod(mode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ownLike(s.tmp, like)
	}
	if err != nil {
		s.abort()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return s, nil
}

// commit renames the staged file into its place and syncs the directory.
func (s *stagedFile) commit() error {
	if err := os.Rename(s.tmp, s.path); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	s.tmp = ""
	if d, err := os.Open(dirOf(s.path)); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return fmt.Errorf("write %s: sync its directory: %w", s.path, err)
		}
	}
	return nil
}

// abort removes the staged file, unless it was committed.
func (s *stagedFile) abort() {
	if s.tmp != "" {
		os.Remove(s.tmp)
		s.tmp = ""
	}
}
