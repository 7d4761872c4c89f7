// Package chromiumtest starts Debian's headless Chromium for the tests that look at a
// page as a person would (through chromedp), or skips them where Chromium is not
// installed; with TABLECTL_REQUIRE_INTEGRATION=1 (as .ci/run sets it) a missing Chromium
// fails them instead.
//
// A test package's tests share one Chromium for each window size (and set of trusted
// keys): each test gets a tab of its own in a browser context of its own, as a new
// incognito window has, with no cookies, storage or cache of another test's. Starting
// Chromium takes more of the CPU than most tests' pages; a package that started one
// for each test spent most of its time there. The package's TestMain calls Close after
// its tests, before it looks for goroutines left behind.
//
// With TABLECTL_SKIP_BROWSER=1 the tests that ask for Chromium skip, whatever
// TABLECTL_REQUIRE_INTEGRATION says: .ci/run's pass under CPU load sets it. A page waits
// on its own state, tried at each of its animation frames; under load that pass measured
// Chromium's speed and most of its time went there. The README test command, before it,
// runs every page.
package chromiumtest

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// Path is Debian's Chromium (package chromium).
const Path = "/usr/bin/chromium"

// SkipEnv is the environment variable that skips the tests that ask for Chromium.
const SkipEnv = "TABLECTL_SKIP_BROWSER"

// New returns a chromedp context for a new tab of headless Chromium with a window of
// width by height pixels, in a browser context of its own; the tab and its browser
// context are closed when the test ends.
func New(t testing.TB, width, height int) context.Context {
	t.Helper()
	return start(t, width, height, "")
}

// NewTrusting is New with Chromium trusting the keys of certs for HTTPS, as a browser
// on the floor trusts the casino's own CA: a test server's certificate (an
// httptest.Server's Certificate) is then good for its pages, and no other is.
func NewTrusting(t testing.TB, width, height int, certs ...*x509.Certificate) context.Context {
	t.Helper()
	pins := make([]string, len(certs))
	for i, c := range certs {
		h := sha256.Sum256(c.RawSubjectPublicKeyInfo)
		pins[i] = base64.StdEncoding.EncodeToString(h[:])
	}
	return start(t, width, height, strings.Join(pins, ","))
}

// browser is one running Chromium, shared by the tests that ask for its window size and
// trusted keys.
type browser struct {
	ctx         context.Context // the browser's first tab: the browser lives as long as it
	cancel      context.CancelFunc
	cancelAlloc context.CancelFunc
	profile     string
	err         error // starting it failed
}

var (
	mu       sync.Mutex
	browsers = map[string]*browser{}
)

// start starts a tab for New and NewTrusting; pins are the keys to trust, if any.
func start(t testing.TB, width, height int, pins string) context.Context {
	t.Helper()
	if os.Getenv(SkipEnv) == "1" {
		t.Skipf("%s=1: the pages are left out of this run", SkipEnv)
	}
	if _, err := os.Stat(Path); err != nil {
		if os.Getenv("TABLECTL_REQUIRE_INTEGRATION") == "1" {
			t.Fatalf("TABLECTL_REQUIRE_INTEGRATION=1 but Chromium is missing (apt-get install chromium): %v", err)
		}
		t.Skipf("Chromium is not installed (%v); apt-get install chromium to run this test", err)
	}
	b := shared(width, height, pins)
	if b.err != nil {
		t.Fatalf("starting Chromium: %v", b.err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// The first Run opens the tab; it lives as long as ctx.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("opening a tab in Chromium: %v", err)
	}
	return ctx
}

// shared returns the browser of that window size and those trusted keys, started on
// the first call.
func shared(width, height int, pins string) *browser {
	mu.Lock()
	defer mu.Unlock()
	key := fmt.Sprintf("%dx%d %s", width, height, pins)
	if b, ok := browsers[key]; ok {
		return b
	}
	b := &browser{}
	browsers[key] = b
	profile, err := os.MkdirTemp("", "tablectl-chromium-")
	if err != nil {
		b.err = err
		return b
	}
	b.profile = profile
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests run as root
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(width, height),
	}
	if pins != "" {
		opts = append(opts, chromedp.Flag("ignore-certificate-errors-spki-list", pins))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// The browser outlives the test that started it: what chromedp logs of it goes to
	// the test binary's standard error.
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "chromium: "+format+"\n", args...)
	}))
	b.ctx, b.cancel, b.cancelAlloc = ctx, cancel, cancelAlloc
	// The first Run starts the browser; it lives as long as ctx.
	if err := chromedp.Do(ctx); err != nil {
		b.err = err
	}
	return b
}

// Close stops every Chromium the package's tests started and removes its profile. A
// package's TestMain calls it after m.Run; it waits until the browsers have stopped.
func Close() {
	mu.Lock()
	defer mu.Unlock()
	for key, b := range browsers {
		if b.cancel != nil {
			b.cancel()
			b.cancelAlloc()
		}
		if b.profile != "" {
			// Chromium may still be writing its profile as it exits: best effort.
			os.RemoveAll(b.profile)
		}
		delete(browsers, key)
	}
}
