// Package chromiumtest starts Debian's headless Chromium for the tests that look at a
// page as a person would (through chromedp), or skips them where Chromium is not
// installed; with TABLECTL_REQUIRE_INTEGRATION=1 (as .ci/run sets it) a missing Chromium
// fails them instead.
package chromiumtest

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Path is Debian's Chromium (package chromium).
const Path = "/usr/bin/chromium"

// New starts headless Chromium with a window of width by height pixels and returns a
// chromedp context for it; the browser is closed and its profile removed when the test
// ends.
func New(t testing.TB, width, height int) context.Context {
	t.Helper()
	return start(t, width, height)
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
	return start(t, width, height, chromedp.Flag("ignore-certificate-errors-spki-list", strings.Join(pins, ",")))
}

// start starts Chromium for New and NewTrusting, with extra flags.
func start(t testing.TB, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := os.Stat(Path); err != nil {
		if os.Getenv("TABLECTL_REQUIRE_INTEGRATION") == "1" {
			t.Fatalf("TABLECTL_REQUIRE_INTEGRATION=1 but Chromium is missing (apt-get install chromium): %v", err)
		}
		t.Skipf("Chromium is not installed (%v); apt-get install chromium to run this test", err)
	}
	profile, err := os.MkdirTemp("", "tablectl-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append([]chromedp.ExecAllocatorOption{
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
	}, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		// Chromium may still be writing its profile as it exits: best effort.
		os.RemoveAll(profile)
	})
	// The first Run starts the browser; it lives as long as ctx.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}
