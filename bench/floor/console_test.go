package floor

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/internal/chromiumtest"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/internal/floorcmd"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// floorConsole is the floor's console, a tablectl-floor process on the central broker
// and the archive's database, with three supervisors in headless Chromium: one on the
// Floor page, one on a Pit page, one on History.
type floorConsole struct {
	url                   string
	pid                   int
	floor, pitTab, histTb context.Context
	searches              *searchTimes
}

// startConsole starts the console and logs the three supervisors in, each in a browser
// context of their own; firstPaint opens the Floor page again, timed.
func startConsole(t *testing.T, dir string, central *mosquittotest.Broker, dsn string) *floorConsole {
	t.Helper()
	users := filepath.Join(dir, "console-users.json")
	for _, name := range []string{"S1", "S2", "S3"} {
		var out cmdtest.LockedBuffer
		if err := floorcmd.Run(context.Background(), []string{"console", "user", "add", name, "--role", "supervisor", "--users", users, "--cost", "4"},
			cli.Stdio{In: strings.NewReader(name + "-floor-password\n"), Out: &out, Err: &out}); err != nil {
			t.Fatalf("console user add %s: %v\n%s", name, err, out.String())
		}
	}
	cert, key := central.ClientCert("console")
	conf := filepath.Join(dir, "console.yaml")
	yaml := fmt.Sprintf("console:\n  central: true\n  mqtt:\n    url: %s\n    ca: %s\n    cert: %s\n    key: %s\n  users: %s\n  archive: %s\n  idle: 10h\n",
		central.TLSURL(), central.CAFile(), cert, key, users, dsn)
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := cmdtest.Binary(t, "github.com/tablectl/tablectl/cmd/tablectl-floor")
	// Stopped by SIGTERM at the test's end, after the floor's checks: it must then exit
	// cleanly.
	cmd := exec.Command(bin, "console", "--config", conf, "--http", "127.0.0.1:0")
	log := &cmdtest.LockedBuffer{}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	c := &floorConsole{pid: cmd.Process.Pid, searches: &searchTimes{}}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "console: http://"); ok {
			c.url = "http://" + strings.TrimSuffix(strings.Fields(addr)[0], "/")
			break
		}
	}
	go func() {
		io.Copy(io.Discard, out)
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := <-done; err != nil {
			t.Errorf("console: %v\n%s", err, log)
		}
	})
	if c.url == "" {
		t.Fatalf("the console did not say where it serves; log:\n%s", log)
	}
	login := func(name, next string) context.Context {
		tab := chromiumtest.New(t, 1600, 1000)
		cmdtest.Browse(t, tab, "log in as "+name,
			chromedp.Navigate(c.url+"/login.html?next="+next),
			chromedp.WaitVisible(chromedp.ID("user")),
			chromedp.SendKeys(chromedp.ID("user"), name),
			chromedp.SendKeys(chromedp.ID("password"), name+"-floor-password"),
			chromedp.Click(chromedp.ID("submit")),
			cmdtest.WaitJS(`document.body.dataset.ready === "1"`))
		return tab
	}
	c.floor = login("S1", "%2F")
	c.pitTab = login("S2", "%2Fpit.html%3Fpit%3Dpit1")
	c.histTb = login("S3", "%2Fhistory.html")
	return c
}

// firstPaint opens the Floor page and returns how long it took until every one of the
// tables had its tile with its state filled in, and the page's own first contentful
// paint.
func (c *floorConsole) firstPaint(t *testing.T, tables int) (all, fcp time.Duration) {
	t.Helper()
	start := time.Now()
	cmdtest.Browse(t, c.floor, "the floor's first paint",
		chromedp.Navigate(c.url+"/"),
		cmdtest.WaitJS(fmt.Sprintf(`document.body.dataset.ready === "1" && document.querySelectorAll(".tile").length === %d &&
			[...document.querySelectorAll(".tile .last")].every((l) => l.textContent !== "")`, tables)))
	all = time.Since(start)
	ms := cmdtest.EvalJS[float64](t, c.floor, `(performance.getEntriesByName("first-contentful-paint")[0] || {startTime: -1}).startTime`)
	if _, err := chromedp.Call(c.floor, performance.Enable, performance.EnableParams{}); err != nil {
		t.Fatalf("the floor's tab: Performance.enable: %v", err)
	}
	return all, time.Duration(ms * float64(time.Millisecond))
}

// taskSeconds is the time the Floor page's tab has spent running its tasks (script,
// layout, paint) since Performance.enable: the CPU its page takes of the browser.
func (c *floorConsole) taskSeconds(t *testing.T) float64 {
	t.Helper()
	r, err := chromedp.Call(c.floor, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		t.Fatalf("the floor's tab: Performance.getMetrics: %v", err)
	}
	for _, m := range r.Metrics {
		if m.Name == "TaskDuration" {
			return m.Value
		}
	}
	t.Fatal("the floor's tab: no TaskDuration among its metrics")
	return 0
}

// tiles returns, table by table, the text of the Floor page's tile: its last result.
func (c *floorConsole) tiles(t *testing.T) map[string]string {
	t.Helper()
	pairs := cmdtest.EvalJS[[][]string](t, c.floor, `[...document.querySelectorAll(".tile")].map((t) => [t.dataset.table, t.querySelector(".last").textContent])`)
	out := map[string]string{}
	for _, p := range pairs {
		out[p[0]] = p[1]
	}
	return out
}

// historySearches are the History page's searches a supervisor makes (by table, time,
// kind, decision and person), as its form sends them, for table and the hour before
// now.
func historySearches(table string, now time.Time) []string {
	from := now.Add(-time.Hour).UTC().Format(time.RFC3339)
	return []string{
		"table=" + table,
		"from=" + from,
		"kind=incorrect_cards",
		"decision=void",
		"person=S3",
	}
}

// searchTimes keeps the times of the History searches made while the floor runs.
type searchTimes struct {
	mu    sync.Mutex
	times []time.Duration
	fails []string
}

// search runs each of the History searches once from the History page's tab, as its
// page does (fetch with the session's cookie), and keeps how long each took, as the
// page measures it.
func (c *floorConsole) search(t *testing.T, table string) {
	t.Helper()
	qs := historySearches(table, time.Now())
	js := fmt.Sprintf(`(async () => {
		const out = [];
		for (const q of %s) {
			const t0 = performance.now();
			const r = await fetch("/api/history/rounds?" + q);
			await r.json();
			out.push([r.status, performance.now() - t0]);
		}
		return out;
	})()`, jsStrings(qs))
	res, err := chromedp.Run(c.histTb, chromedp.Evaluate[[][]float64](js, chromedp.EvalAwaitPromise))
	c.searches.mu.Lock()
	defer c.searches.mu.Unlock()
	if err != nil {
		c.searches.fails = append(c.searches.fails, err.Error())
		return
	}
	for i, r := range res {
		if r[0] != 200 {
			c.searches.fails = append(c.searches.fails, fmt.Sprintf("%s: HTTP %v", qs[i], r[0]))
			continue
		}
		c.searches.times = append(c.searches.times, time.Duration(r[1]*float64(time.Millisecond)))
	}
}

// sorted returns the search times, sorted, and the failures.
func (s *searchTimes) sorted() ([]time.Duration, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.times)
	slices.Sort(out)
	return out, slices.Clone(s.fails)
}

// jsStrings is ss as a JavaScript array of strings.
func jsStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
