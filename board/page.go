package board

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// pageSettings are the board's settings the page reads from its body's data attributes.
type pageSettings struct {
	Lang   string
	Script string
	Game   string
	Logo   bool
	// ResultHoldMS is Options.ResultHold in milliseconds.
	ResultHoldMS int64
}

// checkLang accepts a language or a pair of languages for the labels: en, zh, en+zh or
// zh+en.
func checkLang(lang string) error {
	switch lang {
	case "en", "zh", "en+zh", "zh+en":
		return nil
	}
	return fmt.Errorf("board: language %q: want en, zh, en+zh or zh+en", lang)
}

// checkScript accepts the script of the Chinese labels: simplified or traditional.
func checkScript(script string) error {
	switch script {
	case "simplified", "traditional":
		return nil
	}
	return fmt.Errorf("board: script %q: want simplified or traditional", script)
}

// renderPage is index.html with the board's settings.
func renderPage(files fs.FS, lang, script, game string, logo bool, hold time.Duration) ([]byte, error) {
	if lang == "" {
		lang = DefaultLang
	}
	if err := checkLang(lang); err != nil {
		return nil, err
	}
	if script == "" {
		script = DefaultScript
	}
	if err := checkScript(script); err != nil {
		return nil, err
	}
	if len(game) > 80 || strings.ContainsAny(game, "\r\n") {
		return nil, fmt.Errorf("board: game name %q: want one line of at most 80 bytes", game)
	}
	if hold < 0 {
		return nil, fmt.Errorf("board: result hold %s: want 0 or more", hold)
	}
	src, err := fs.ReadFile(files, "index.html")
	if err != nil {
		return nil, fmt.Errorf("board: embedded page: %w", err)
	}
	t, err := template.New("index.html").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("board: embedded page: %w", err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, pageSettings{Lang: lang, Script: script, Game: game, Logo: logo, ResultHoldMS: hold.Milliseconds()}); err != nil {
		return nil, fmt.Errorf("board: embedded page: %w", err)
	}
	return out.Bytes(), nil
}

// logoTypes are the image types a logo may be, by the file's extension.
var logoTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml",
}

// readLogo reads the logo file and works out its content type. A file that is missing,
// too large, or not an image of a known type is an error naming it.
func readLogo(path string) ([]byte, string, error) {
	ct, ok := logoTypes[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return nil, "", fmt.Errorf("board: logo %s: want a .png, .jpg, .gif, .webp or .svg file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("board: logo: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("board: logo: %w", err)
	}
	if st.Size() > MaxLogo {
		return nil, "", fmt.Errorf("board: logo %s: %d bytes, more than the %d a logo may have", path, st.Size(), MaxLogo)
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil && st.Size() > 0 {
		return nil, "", fmt.Errorf("board: logo: %w", err)
	}
	if ct != "image/svg+xml" {
		if got := http.DetectContentType(data); got != ct {
			return nil, "", fmt.Errorf("board: logo %s: the file's content is %s, not %s", path, got, ct)
		}
	} else if !bytes.Contains(data, []byte("<svg")) {
		return nil, "", fmt.Errorf("board: logo %s: no <svg> element in the file", path)
	}
	return data, ct, nil
}
