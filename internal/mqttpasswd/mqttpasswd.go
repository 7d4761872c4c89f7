// Package mqttpasswd makes the lines of Mosquitto 2's password file: a user's password
// hashed as mosquitto_passwd hashes it, PBKDF2 with HMAC-SHA512, in the form
// "user:$7$<iterations>$<salt in base64>$<hash in base64>". It also makes the random
// passwords tablectl enroll gives the tables, and puts a user's line in a file's text.
// It reads and writes no file.
package mqttpasswd

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Iterations is the PBKDF2 iteration count of a hash: mosquitto_passwd's default.
const Iterations = 101

// SaltLen and HashLen are the lengths in bytes of a hash's salt (as mosquitto_passwd
// 2.0 makes it) and of the hash itself (SHA-512's).
const (
	SaltLen = 12
	HashLen = 64
)

// prefix begins every hash: Mosquitto's number for PBKDF2 with SHA-512.
const prefix = "$7$"

// PasswordBytes is how many random bytes a password carries: 192 bits.
const PasswordBytes = 24

// NewPassword is a password of PasswordBytes random bytes, written in base64 for URLs
// without padding: 32 printable characters, with no ':' and no space, which a password
// file and a password_file's first line take as they are.
func NewPassword() (string, error) {
	b := make([]byte, PasswordBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("mqttpasswd: random password: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Hash is password hashed with a new random salt, as a line of the password file has it
// after "user:": "$7$101$<salt>$<hash>", salt and hash in standard base64.
func Hash(password string) (string, error) {
	salt := make([]byte, SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("mqttpasswd: salt: %w", err)
	}
	return hashWith(password, salt, Iterations)
}

func hashWith(password string, salt []byte, iterations int) (string, error) {
	if strings.ContainsRune(password, 0) {
		return "", errors.New("mqttpasswd: a password holds no NUL byte") // Mosquitto reads it as a C string
	}
	h, err := pbkdf2.Key(sha512.New, password, salt, iterations, HashLen)
	if err != nil {
		return "", fmt.Errorf("mqttpasswd: hash: %w", err)
	}
	return prefix + strconv.Itoa(iterations) + "$" + base64.StdEncoding.EncodeToString(salt) + "$" +
		base64.StdEncoding.EncodeToString(h), nil
}

// Verify reports whether hash, in the form Hash writes, is password's. A hash of another
// form is an error.
func Verify(hash, password string) (bool, error) {
	parts := strings.Split(strings.TrimPrefix(hash, prefix), "$")
	if !strings.HasPrefix(hash, prefix) || len(parts) != 3 {
		return false, fmt.Errorf("mqttpasswd: %.12q... is not a $7$ (PBKDF2-SHA512) hash", hash)
	}
	iterations, err := strconv.Atoi(parts[0])
	if err != nil || iterations < 1 {
		return false, fmt.Errorf("mqttpasswd: iterations %q: want a number above 0", parts[0])
	}
	salt, err := base64.StdEncoding.DecodeString(parts[1])
	if err != nil || (len(salt) != SaltLen && len(salt) != HashLen) {
		return false, fmt.Errorf("mqttpasswd: salt: want %d or %d bytes in base64", SaltLen, HashLen)
	}
	want, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(want) != HashLen {
		return false, fmt.Errorf("mqttpasswd: hash: want %d bytes in base64", HashLen)
	}
	got, err := hashWith(password, salt, iterations)
	if err != nil {
		return false, err
	}
	return hmac.Equal([]byte(got[strings.LastIndexByte(got, '$')+1:]), []byte(parts[2])), nil
}

// CheckUser checks a user name for a line of the password file: not empty, and no ':',
// space or line break.
func CheckUser(user string) error {
	if user == "" || strings.ContainsAny(user, ": \t\r\n") {
		return fmt.Errorf("mqttpasswd: user %q: want a name without ':', spaces or line breaks", user)
	}
	return nil
}

// SetLine returns text, a password file's content, with user's line set to hash: the
// line replaced where the user has one (any further line of the user dropped), else
// added at the end. replaced says which. Every other line is kept as it is.
func SetLine(text []byte, user, hash string) (out []byte, replaced bool, err error) {
	if err := CheckUser(user); err != nil {
		return nil, false, err
	}
	line := user + ":" + hash
	var b bytes.Buffer
	lines := strings.SplitAfter(string(text), "\n")
	for _, l := range lines {
		name, _, ok := strings.Cut(strings.TrimRight(l, "\r\n"), ":")
		switch {
		case l == "":
			continue // after the last line break
		case !ok || name != user:
			b.WriteString(l)
			if !strings.HasSuffix(l, "\n") {
				b.WriteString("\n")
			}
		case !replaced:
			b.WriteString(line + "\n")
			replaced = true
		}
	}
	if !replaced {
		b.WriteString(line + "\n")
	}
	return b.Bytes(), replaced, nil
}
