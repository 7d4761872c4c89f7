package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"github.com/tablectl/tablectl/irregularities"
)

// DefaultBcryptCost is the bcrypt cost of the password hashes AddUser writes when it is
// given none: about a quarter of a second on a desktop, a second or so on a Raspberry Pi.
const DefaultBcryptCost = 12

// MinPasswordLength is the shortest password AddUser accepts.
const MinPasswordLength = 10

// maxNameLength bounds a person's name, which goes into the journal as the actor.
const maxNameLength = 64

// User is one person who may log in to the console.
type User struct {
	// Name is the person's login and the actor recorded with each of their commands.
	Name string `json:"name"`
	// Role is dealer, supervisor, pit_manager or shift_manager (docs/irregularities.md),
	// or surveillance: one who watches and answers the integrity alarms, reads the
	// history, and commands no table (SurveillanceRole).
	Role string `json:"role"`
	// Tables and Pits are the tables the person works, by table id or by pit; both
	// empty: every table.
	Tables []string `json:"tables,omitempty"`
	Pits   []string `json:"pits,omitempty"`
	// Hash is the bcrypt hash of the password.
	Hash string `json:"hash"`
}

// SurveillanceRole is the role of surveillance: outside the table's chain of command,
// so it ranks below a dealer at every table (rank 0) and the table refuses its commands.
const SurveillanceRole = "surveillance"

// surveillance reports whether the user is of surveillance.
func (u User) surveillance() bool { return u.Role == SurveillanceRole }

// rank is the user's role in irregularities' order (dealer lowest; 0 for surveillance,
// below every role of the table).
func (u User) rank() irregularities.Role {
	r, _ := irregularities.ParseRole(u.Role)
	return r
}

// Works reports whether the person works table (in pit, "" when unknown).
func (u User) Works(table, pit string) bool {
	if len(u.Tables) == 0 && len(u.Pits) == 0 {
		return true
	}
	return slices.Contains(u.Tables, table) || pit != "" && slices.Contains(u.Pits, pit)
}

// usersFile is the users file: {"users":[...]}.
type usersFile struct {
	Users []User `json:"users"`
}

// Users is the users file's content, by name.
type Users struct {
	list []User
}

// Lookup returns the user called name.
func (us *Users) Lookup(name string) (User, bool) {
	for _, u := range us.list {
		if u.Name == name {
			return u, true
		}
	}
	return User{}, false
}

// List returns the users in the file's order.
func (us *Users) List() []User { return slices.Clone(us.list) }

// checkName accepts a person's name: 1 to 64 bytes of letters, digits, '.', '_' or
// '-', so it is safe in a log line, a journal and a page.
func checkName(name string) error {
	if name == "" || len(name) > maxNameLength {
		return fmt.Errorf("name %q is not 1 to %d bytes long", name, maxNameLength)
	}
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("name %q has %q at byte %d (a name takes letters, digits, '.', '_' and '-')", name, c, i)
		}
	}
	return nil
}

// checkRole accepts the four roles of docs/irregularities.md, and surveillance.
func checkRole(role string) error {
	if _, err := irregularities.ParseRole(role); err != nil && role != SurveillanceRole {
		return fmt.Errorf("unknown role %q: want dealer, supervisor, pit_manager, shift_manager or surveillance", role)
	}
	return nil
}

// checkUser checks one entry of the file.
func checkUser(u User) error {
	if err := checkName(u.Name); err != nil {
		return err
	}
	if err := checkRole(u.Role); err != nil {
		return fmt.Errorf("user %q: %w", u.Name, err)
	}
	if _, err := bcrypt.Cost([]byte(u.Hash)); err != nil {
		return fmt.Errorf("user %q: the password hash is not a bcrypt hash: %w", u.Name, err)
	}
	for _, t := range u.Tables {
		if t == "" || strings.ContainsAny(t, "/+#\x00") || len(t) > 64 {
			return fmt.Errorf("user %q: table %q is not a table id", u.Name, t)
		}
	}
	for _, p := range u.Pits {
		if p == "" || strings.ContainsAny(p, "/+#\x00") || len(p) > 64 {
			return fmt.Errorf("user %q: pit %q is not a pit name", u.Name, p)
		}
	}
	return nil
}

// LoadUsers reads and checks the users file. A file that others may read or write,
// that is not JSON of the expected shape, or that has an entry with a duplicate name,
// an unknown role or no bcrypt hash is refused with an error that names the file and
// the entry.
func LoadUsers(path string) (*Users, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	if err := checkMode(path, fi); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	var f usersFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("users file %s: %w", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("users file %s: more than one JSON value", path)
	}
	seen := map[string]int{}
	for i, u := range f.Users {
		if err := checkUser(u); err != nil {
			return nil, fmt.Errorf("users file %s: entry %d: %w", path, i+1, err)
		}
		if j, dup := seen[u.Name]; dup {
			return nil, fmt.Errorf("users file %s: entry %d: duplicate name %q (entry %d has it too)", path, i+1, u.Name, j+1)
		}
		seen[u.Name] = i
	}
	return &Users{list: f.Users}, nil
}

// checkMode refuses a users file that anyone but its owner and group may read or write.
func checkMode(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("users file %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o007 != 0 && worldBitsMatter() {
		return fmt.Errorf("users file %s has mode %04o: others may read or write it; chmod 600 %s", path, perm, path)
	}
	return nil
}

// readForUpdate reads the file for a change: a missing file is an empty one.
func readForUpdate(path string) (*Users, error) {
	us, err := LoadUsers(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Users{}, nil
	}
	return us, err
}

// AddUser adds a person to the users file (creating it with mode 0600 when missing;
// an existing file keeps its owner, group and mode),
// with the bcrypt hash of password. A duplicate name, an unknown role or a password
// shorter than MinPasswordLength is refused and the file is left as it was. cost is the
// bcrypt cost (bcrypt.MinCost to bcrypt.MaxCost), DefaultBcryptCost when 0.
func AddUser(path string, u User, password string, cost int) error {
	if cost == 0 {
		cost = DefaultBcryptCost
	}
	if cost < bcrypt.MinCost || cost > bcrypt.MaxCost {
		return fmt.Errorf("bcrypt cost %d is not between %d and %d", cost, bcrypt.MinCost, bcrypt.MaxCost)
	}
	if err := checkName(u.Name); err != nil {
		return err
	}
	if err := checkRole(u.Role); err != nil {
		return err
	}
	if len(password) < MinPasswordLength {
		return fmt.Errorf("the password of %q is shorter than %d characters", u.Name, MinPasswordLength)
	}
	if len(password) > 72 {
		return fmt.Errorf("the password of %q is longer than bcrypt's 72 bytes", u.Name)
	}
	us, err := readForUpdate(path)
	if err != nil {
		return err
	}
	if _, dup := us.Lookup(u.Name); dup {
		return fmt.Errorf("users file %s already has a user %q (remove it first)", path, u.Name)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return fmt.Errorf("hash the password of %q: %w", u.Name, err)
	}
	u.Hash = string(h)
	if err := checkUser(u); err != nil {
		return err
	}
	us.list = append(us.list, u)
	return writeUsers(path, us)
}

// RemoveUser removes a person from the users file; a name not there is an error.
func RemoveUser(path, name string) error {
	us, err := LoadUsers(path)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(us.list, func(u User) bool { return u.Name == name })
	if i < 0 {
		return fmt.Errorf("users file %s has no user %q", path, name)
	}
	us.list = slices.Delete(us.list, i, i+1)
	return writeUsers(path, us)
}

// writeUsers replaces the file atomically (a temporary file in the same directory,
// synced, then renamed).
func writeUsers(path string, us *Users) error {
	b, err := json.MarshalIndent(usersFile{Users: us.list}, "", "  ")
	if err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	// A new file is 0600; a file replaced keeps its owner, group and mode (never with
	// rights for others), so the console's group can still read it.
	mode := os.FileMode(0o600)
	if old, err := os.Stat(path); err == nil {
		mode = old.Mode().Perm() &^ 0o007
		if err := keepOwner(tmp, old); err != nil {
			tmp.Close()
			return fmt.Errorf("users file: keep the owner of %s: %w", path, err)
		}
	}
	if err := tmp.Chmod(mode); err != nil && worldBitsMatter() {
		tmp.Close()
		return fmt.Errorf("users file: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("users file: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("users file: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	return nil
}
