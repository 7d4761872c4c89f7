package floorcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/pgtest"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/simulator"
)

// TestIntegrityEndToEnd: on SQLite and on PostgreSQL, five simulated tables deal
// one-deck shoes through Debian's Mosquitto, with the shipped ACL, to one tablectl-floor
// archive, each dealing a case of the integrity watch (docs/integrity.md):
//
//   - ig01 deals a preset order, then the same order again from a shuffler that reports
//     counts only: the shuffler's input dealt again;
//   - ig02 deals that preset order too: a repeated order at two tables;
//   - ig03 deals a shoe that opens with a 20-card run of the preset order, a card palmed
//     after its shuffler reported it: a repeated run and a set short of a card;
//   - ig04 has a shuffler that only riffles once: a weak shuffle;
//   - ig05 deals shoes arranged for Banker: a drift.
//
// tablectl-floor integrity lists each alarm at its table with its evidence, and no other
// (the honest sets raise none); surveillance sees each on the console's Integrity page
// in Chromium, and an acknowledgement with a note goes through the broker to the archive
// and is shown kept.
func TestIntegrityEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("five tables and an archive, on each engine; the suite without -short runs it")
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel() // each its own broker, database and tables
			dir := t.TempDir()
			dsn := filepath.Join(dir, "archive.db")
			if engine == "postgres" {
				dsn = pgtest.Start(t).NewDatabase(t)
			}
			integrityEndToEnd(t, engine, dir, dsn)
		})
	}
}

// integrityOrders are the preset orders of TestIntegrityEndToEnd: x, a shuffled deck,
// and z, which opens with x's cards 6 to 25 and has palmed, the card it is to lose, at
// its 31st place, among the cards dealt.
func integrityOrders() (x, z []baccarat.Card, palmed baccarat.Card) {
	r := rand.New(rand.NewPCG(20261203, 41))
	x = simulator.NewDecks(1)
	simulator.Shuffle(x, r)
	run := x[5:25]
	var rest []baccarat.Card
	for _, c := range simulator.NewDecks(1) {
		if !slices.Contains(run, c) {
			rest = append(rest, c)
		}
	}
	for {
		simulator.Shuffle(rest, r)
		if rest[0] != x[25] { // the run ends at 20 cards
			break
		}
	}
	palmed = rest[10]
	return x, append(slices.Clone(run), rest...), palmed
}

func writeOrders(t *testing.T, path string, sets ...[]baccarat.Card) {
	t.Helper()
	var b strings.Builder
	for _, s := range sets {
		for i, c := range s {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c.String())
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func integrityEndToEnd(t *testing.T, engine, dir, dsn string) {
	x, z, palmed := integrityOrders()
	ordersX2, ordersX, ordersZ := filepath.Join(dir, "x2.txt"), filepath.Join(dir, "x.txt"), filepath.Join(dir, "z.txt")
	writeOrders(t, ordersX2, x, x)
	writeOrders(t, ordersX, x)
	writeOrders(t, ordersZ, z)
	type table struct {
		id, journal string
		args        []string
		run         *proc
	}
	tables := []*table{
		{id: "ig01", args: []string{"--orders", ordersX2, "--count-only", "--rounds", "24"}},
		{id: "ig02", args: []string{"--orders", ordersX, "--rounds", "24"}},
		{id: "ig03", args: []string{"--orders", ordersZ, "--remove-card", palmed.String(), "--tamper-set", "1", "--rounds", "24"}},
		{id: "ig04", args: []string{"--riffles", "1", "--rounds", "24"}},
		{id: "ig05", args: []string{"--banker-bias", "1", "--rounds", "160"}},
	}
	users := map[string]string{"archive-floor": "a-pw", "pitsystem": "p-pw", "console": "c-pw"}
	for i, tb := range tables {
		users[tb.id] = fmt.Sprintf("t%d-pw", i+1)
	}
	acl, err := api.MosquittoACL(api.ACLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := mosquittotest.Start(t, mosquittotest.Config{Users: users, ACL: string(acl)})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute) // a guard against a hang, not a measure
	defer cancel()

	var keys strings.Builder
	for _, tb := range tables {
		tb.journal = filepath.Join(dir, tb.id, "journal")
		if err := os.MkdirAll(filepath.Dir(tb.journal), 0o750); err != nil {
			t.Fatal(err)
		}
		if _, _, err := journal.LoadOrCreateKey(journal.DefaultKeyPath(tb.journal)); err != nil {
			t.Fatal(err)
		}
		out, _, err := runTableCmd(t, "", "key", "show", "--journal", tb.journal)
		if err != nil {
			t.Fatalf("key show: %v", err)
		}
		fmt.Fprintf(&keys, "%s %s\n", tb.id, strings.TrimSpace(out))
	}
	keysFile := filepath.Join(dir, "keys")
	if err := os.WriteFile(keysFile, []byte(keys.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	held := watchHeld(t, b.URL(), "pitsystem", users["pitsystem"])
	arch := startBuilt(t, floorPkg, "archive", "--mqtt", b.URL(), "--mqtt-password", users["archive-floor"], "--db", dsn, "--keys", keysFile,
		"--client-id", "archive-integrity-"+engine)
	for {
		ok, written := arch.log.Holds("MQTT connected and subscribed")
		if ok {
			break
		}
		select {
		case err := <-arch.exited:
			t.Fatalf("tablectl-floor archive exited: %v\n%s", err, arch.log.String())
		case <-ctx.Done():
			t.Fatalf("tablectl-floor archive did not connect:\n%s", arch.log.String())
		case <-written:
		}
	}
	for i, tb := range tables {
		args := append([]string{"run", "--simulate", "--decks", "1", "--pace", "0", "--round-pause", "0", "--seed", strconv.Itoa(11 + i),
			"--table", tb.id, "--journal", tb.journal, "--http", "", e2eShip, "--mqtt", b.URL(), "--mqtt-user", tb.id,
			"--mqtt-password", users[tb.id]}, tb.args...)
		tb.run = startBuilt(t, tablePkg, args...)
	}
	for _, tb := range tables {
		select {
		case err := <-tb.run.exited:
			if err != nil {
				t.Fatalf("table %s: %v\n%s", tb.id, err, tb.run.log.String())
			}
		case <-ctx.Done():
			t.Fatalf("table %s did not end\n%s", tb.id, tb.run.log.String())
		}
	}
	for _, tb := range tables {
		last, _ := cmdtest.JournalHead(t, tb.journal)
		held.wait(t, ctx, tb.id, fmt.Sprintf("at its last record %d", last), func(h api.ArchiveHeld) bool { return h.Seq == last }, arch.log)
	}
	if !strings.Contains(tables[2].run.log.String(), "came out where the shuffler recorded "+palmed.String()) {
		t.Errorf("table ig03 did not hold for the card after %s, palmed:\n%.3000s", palmed, tables[2].run.log.String())
	}

	out, errs, err := runCmd(t, "", "integrity", "--db", dsn, "--format", "json")
	if err != nil {
		t.Fatalf("integrity: %v\n%s", err, errs)
	}
	var alarms []history.IntegrityAlarm
	if err := json.Unmarshal([]byte(out), &alarms); err != nil {
		t.Fatalf("integrity --format json: %v\n%s", err, out)
	}
	byKind := map[string][]history.IntegrityAlarm{}
	for _, a := range alarms {
		byKind[a.Kind] = append(byKind[a.Kind], a)
	}
	tablesOf := func(kind string) []string {
		var ts []string
		for _, a := range byKind[kind] {
			ts = append(ts, a.Table)
		}
		slices.Sort(ts)
		return slices.Compact(ts)
	}
	// The shuffler's input dealt again, at ig01 alone; the weak shuffle at ig04 alone;
	// the palmed card at ig03 alone; the drift at ig05 alone, of Banker.
	for kind, want := range map[string]string{api.AlertIntegrityInput: "ig01", api.AlertIntegrityShuffle: "ig04",
		api.AlertIntegritySet: "ig03", api.AlertIntegrityDrift: "ig05"} {
		if got := tablesOf(kind); !slices.Equal(got, []string{want}) {
			t.Errorf("%s alarms at %v, want at %s alone\n%s", kind, got, want, out)
		}
	}
	for _, a := range byKind[api.AlertIntegritySet] {
		if !slices.Equal(a.Evidence.Missing, []string{palmed.String()}) || len(a.Evidence.Foreign)+len(a.Evidence.Over) != 0 {
			t.Errorf("the set alarm names missing %v, foreign %v, over %v; want %s missing alone", a.Evidence.Missing, a.Evidence.Foreign, a.Evidence.Over, palmed)
		}
	}
	for _, a := range byKind[api.AlertIntegrityDrift] {
		if !strings.Contains(strings.ToLower(a.Text), "banker") {
			t.Errorf("the drift alarm: %q, want Banker's", a.Text)
		}
	}
	// The repeated orders: the preset order at ig01 and ig02, and the 20-card run at
	// ig03 with each shoe of that order, at its place in both.
	pair := func(a history.IntegrityAlarm) string {
		if a.Evidence.Other == nil {
			return a.Table
		}
		p := []string{a.Evidence.Shoe.Table, a.Evidence.Other.Table}
		slices.Sort(p)
		return strings.Join(p, "+")
	}
	pairs := map[string]bool{}
	for _, a := range byKind[api.AlertIntegrityRepeated] {
		pairs[pair(a)] = true
		if !strings.Contains(pair(a), "ig03") {
			continue
		}
		found := false
		for _, r := range a.Evidence.Runs {
			atZ, atX := r.A, r.B
			if a.Evidence.Shoe.Table != "ig03" {
				atZ, atX = r.B, r.A
			}
			found = found || r.Len == 20 && atZ == 0 && atX == 5 && r.Cards == cardsText(x[5:25])
		}
		if !found {
			t.Errorf("the repeated order of %s: runs %+v, want x's cards 6 to 25 at the start of ig03's shoe", pair(a), a.Evidence.Runs)
		}
	}
	if !pairs["ig01+ig02"] || !pairs["ig01+ig03"] || !pairs["ig02+ig03"] || len(pairs) != 3 {
		t.Errorf("repeated orders between %v, want ig01+ig02, ig01+ig03 and ig02+ig03\n%s", pairs, out)
	}
	t.Logf("%d alarms: %d repeated orders, input %d, shuffle %d, set %d, drift %d", len(alarms), len(byKind[api.AlertIntegrityRepeated]),
		len(byKind[api.AlertIntegrityInput]), len(byKind[api.AlertIntegrityShuffle]), len(byKind[api.AlertIntegritySet]), len(byKind[api.AlertIntegrityDrift]))

	integrityInBrowser(t, engine, dir, dsn, b, users["console"], len(alarms), arch.log)
}

// cardsText writes cards as the reports do: "9S KD".
func cardsText(cards []baccarat.Card) string {
	s := make([]string, len(cards))
	for i, c := range cards {
		s[i] = c.String()
	}
	return strings.Join(s, " ")
}

// integrityInBrowser has surveillance open the console's Integrity page on the archive
// and find there every alarm (n), each with its evidence, then acknowledge the set's
// alarm with a note until the page shows it kept in the archive.
func integrityInBrowser(t *testing.T, engine, dir, dsn string, b *mosquittotest.Broker, mqttPassword string, n int, archLog *lockedBuffer) {
	t.Helper()
	usersFile := filepath.Join(dir, "users.json")
	if _, _, err := runCmd(t, "surveillance-pass-9\n", "console", "user", "add", "V9", "--role", "surveillance", "--users", usersFile, "--cost", "4"); err != nil {
		t.Fatal(err)
	}
	password := filepath.Join(dir, "console-mqtt-password")
	if err := os.WriteFile(password, []byte(mqttPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "console.yaml")
	yaml := fmt.Sprintf("console:\n  mqtt:\n    url: %s\n    username: console\n    password_file: %s\n  users: %s\n  archive: %q\n  http: 127.0.0.1:1\n",
		b.URL(), password, usersFile, dsn)
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	base, consoleLog := startConsole(t, "", "--config", conf)
	ctx := newConsoleBrowser(t)
	pageLogin(t, ctx, base, "V9", "surveillance-pass-9")
	browse(t, ctx, "the Integrity page",
		chromedp.Navigate(base+"/integrity.html"),
		waitJS(fmt.Sprintf(`document.body.dataset.ready === "1" && document.querySelectorAll('.integrity-card').length === %d`, n)))
	for _, kind := range []string{api.AlertIntegrityRepeated, api.AlertIntegrityInput, api.AlertIntegrityShuffle, api.AlertIntegritySet, api.AlertIntegrityDrift} {
		if got := evalJS[int](t, ctx, `document.querySelectorAll('.integrity-card[data-kind="`+kind+`"]').length`); got == 0 {
			t.Errorf("the page shows no %s alarm", kind)
		}
	}
	_, _, palmed := integrityOrders()
	set := `.integrity-card[data-kind="` + api.AlertIntegritySet + `"] `
	if got := evalJS[string](t, ctx, `document.querySelector('`+set+`.evidence').innerText.replace(/\s+/g, ' ')`); !strings.Contains(got, palmed.String()) {
		t.Errorf("the set alarm's evidence reads %q, want %s named", got, palmed)
	}
	sides := evalJS[[]string](t, ctx, `[...document.querySelectorAll('.integrity-card[data-kind="`+api.AlertIntegrityRepeated+`"] .shoe-side')].map((s) => s.innerText.replace(/\s+/g, ' ').trim())`)
	x, _, _ := integrityOrders()
	if !slices.ContainsFunc(sides, func(s string) bool {
		return strings.Contains(s, "ig03") && strings.Contains(s, "cards 1 to 20 "+cardsText(x[5:25]))
	}) {
		t.Errorf("no shoe side shows ig03's 20-card run at cards 1 to 20: %q", sides)
	}
	screenshot(t, ctx, "integrity-e2e-"+engine+".png")
	browse(t, ctx, "acknowledge the set's alarm",
		waitJS(`(() => { const n = document.querySelector('`+set+`.alert-note'); n.value = "Shoe pulled; the deck counted at the cage."; n.dispatchEvent(new Event('input')); return true; })()`),
		chromedp.Click(chromedp.CSS(set+"button.ack")),
		waitJS(`!!document.querySelector('.integrity-card.acked[data-kind="`+api.AlertIntegritySet+`"] .alert-ack')`))
	// The console gave the archive the acknowledgement through the broker: the archive
	// holds it, and the page, read again, says so.
	guard := time.Now().Add(60 * time.Second) // only bounds a failure
	for {
		out, _, err := runCmd(t, "", "integrity", "--db", dsn, "--format", "json", "--kind", api.AlertIntegritySet)
		var alarms []history.IntegrityAlarm
		if err == nil && json.Unmarshal([]byte(out), &alarms) == nil && len(alarms) == 1 && alarms[0].AckBy != "" {
			if alarms[0].AckBy != "V9" || alarms[0].AckRole != "surveillance" || !strings.Contains(alarms[0].AckNote, "cage") {
				t.Errorf("the archive holds the acknowledgement %+v", alarms[0].Alert)
			}
			break
		}
		if time.Now().After(guard) {
			t.Fatalf("the archive never held the acknowledgement: %v\n%s\narchive:\n%s\nconsole:\n%s", err, out, archLog.String(), consoleLog.String())
		}
		time.Sleep(50 * time.Millisecond) // the archive says nothing when it stores an acknowledgement: its database is read again
	}
	browse(t, ctx, "refresh", chromedp.Click(chromedp.ID("refresh")), waitJS(`document.body.dataset.ready === "1"`))
	if got := evalJS[string](t, ctx, `document.querySelector('`+set+`.alert-kept')?.textContent ?? ""`); got != "Kept in the archive." {
		t.Errorf("after the archive stored the acknowledgement, the page says %q", got)
	}
	screenshot(t, ctx, "integrity-e2e-acknowledged-"+engine+".png")
}
