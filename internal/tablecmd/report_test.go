package tablecmd

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/tablectl/tablectl/internal/artifacts"
	"github.com/tablectl/tablectl/internal/chromiumtest"
	"github.com/tablectl/tablectl/report"
)

// dealtRound is a round as `journal replay --json` tells it.
type dealtRound struct {
	Shoe, Round    uint32
	Player, Banker string
	Winner         string
	P, B           int
}

// seededShoe deals 70 rounds of the simulator's seeded first shoe into a journal (the
// table signs its head at each round's end), and returns the journal and the rounds as
// `journal replay --json` tells them.
func seededShoe(t *testing.T) (string, []dealtRound) {
	t.Helper()
	jdir := filepath.Join(t.TempDir(), "journal")
	if out, _, err := runCmd(t, "", "run", "--simulate", "--pace", "0", "--rounds", "70", "--journal", jdir,
		"--http", "", "--broker-listen", "127.0.0.1:0", "--broker-websocket", ""); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, _, err := runCmd(t, "", "journal", "replay", "--json", jdir)
	if err != nil {
		t.Fatal(err)
	}
	var rounds []dealtRound
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Effects []struct {
				Kind    string   `json:"kind"`
				Shoe    uint32   `json:"shoe"`
				Round   uint32   `json:"round"`
				Player  []string `json:"player"`
				Banker  []string `json:"banker"`
				Outcome struct {
					Winner string `json:"winner"`
					P      int    `json:"player_points"`
					B      int    `json:"banker_points"`
				} `json:"outcome"`
			} `json:"effects"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		for _, e := range rec.Effects {
			if e.Kind == "round-complete" {
				rounds = append(rounds, dealtRound{e.Shoe, e.Round, strings.Join(e.Player, " "), strings.Join(e.Banker, " "),
					e.Outcome.Winner, e.Outcome.P, e.Outcome.B})
			}
		}
	}
	if len(rounds) != 70 {
		t.Fatalf("replay tells %d complete rounds, want 70", len(rounds))
	}
	return jdir, rounds
}

// TestReportListsEveryRound: the JSON lines, CSV and HTML reports list every round of a
// seeded shoe with the cards and outcome `journal replay --json` gives, and the HTML
// prints on A4 in the expected number of pages.
func TestReportListsEveryRound(t *testing.T) {
	t.Parallel()
	jdir, want := seededShoe(t)

	out, _, err := runCmd(t, "", "report", jdir, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got []dealtRound
	var shoes, checkpoints int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var l struct {
			Type           string `json:"type"`
			Shoe, Round    uint32
			Player, Banker []string
			Outcome        *struct {
				Winner string `json:"winner"`
				P      int    `json:"player_points"`
				B      int    `json:"banker_points"`
			} `json:"outcome"`
			Summary struct {
				Rounds int `json:"rounds"`
				Cards  int `json:"cards"`
			} `json:"summary"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch l.Type {
		case "round":
			if l.Outcome == nil {
				t.Fatalf("round without outcome: %s", line)
			}
			got = append(got, dealtRound{l.Shoe, l.Round, strings.Join(l.Player, " "), strings.Join(l.Banker, " "),
				l.Outcome.Winner, l.Outcome.P, l.Outcome.B})
		case "shoe":
			shoes++
			if l.Summary.Rounds != 70 || l.Summary.Cards < 70*4 {
				t.Errorf("shoe summary %+v", l.Summary)
			}
		case "checkpoint":
			checkpoints++
		}
	}
	if shoes != 1 || checkpoints != 70 {
		t.Errorf("%d shoes, %d checkpoints; want 1 and 70, one a round", shoes, checkpoints)
	}
	sameRounds(t, "json", got, want)

	out, _, err = runCmd(t, "", "report", jdir, "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != strings.Join(report.CSVHeader, ",") {
		t.Fatalf("header %v", rows[0])
	}
	got = nil
	for _, r := range rows[1:] {
		got = append(got, dealtRound{Shoe: atou(t, r[2]), Round: atou(t, r[4]), Player: r[7], Banker: r[8], Winner: r[11],
			P: int(atou(t, r[9])), B: int(atou(t, r[10]))})
	}
	sameRounds(t, "csv", got, want)

	// The HTML and its A4 print are kept to look at (internal/artifacts).
	htmlFile := filepath.Join(artifacts.Dir(t), "report.html")
	if _, _, err := runCmd(t, "", "report", jdir, "--out", htmlFile); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(htmlFile)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, ban := range []string{"<script", "src=\"http", "href=\"http", "@import", "url("} {
		if strings.Contains(html, ban) {
			t.Errorf("the report is not self-contained: it has %q", ban)
		}
	}
	row := regexp.MustCompile(`<tr><td class="n">(\d+)</td><td>[^<]*</td><td class="cards">([^<]*)</td><td class="cards">([^<]*)</td><td class="n">(\d)</td><td class="n">(\d)</td><td class="r-(\w+)">`)
	got = nil
	for _, m := range row.FindAllStringSubmatch(html, -1) {
		got = append(got, dealtRound{Shoe: 1, Round: atou(t, m[1]), Player: m[2], Banker: m[3], Winner: m[6],
			P: int(atou(t, m[4])), B: int(atou(t, m[5]))})
	}
	sameRounds(t, "html", got, want)

	pages := printPDF(t, htmlFile, filepath.Join(artifacts.Dir(t), "report.pdf"))
	// A page for the shoe's facts, summary, roads and first rounds, one more of rounds,
	// the irregularities, devices and the 70 signed heads (one a round) over three, and one
	// for the day summary.
	if pages != 6 {
		t.Errorf("the 70-round shoe prints on %d A4 pages, want 6", pages)
	}
}

func sameRounds(t *testing.T, what string, got, want []dealtRound) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s report lists %d rounds, the replay %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s report, round %d: %+v, the replay %+v", what, i+1, got[i], want[i])
		}
	}
}

func atou(t *testing.T, s string) uint32 {
	t.Helper()
	var n uint32
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("%q is not a number", s)
		}
		n = n*10 + uint32(c-'0')
	}
	return n
}

// printPDF prints the page at file on A4 with headless Chromium, as a browser's print
// does, keeps the PDF at out and returns its page count.
func printPDF(t *testing.T, file, out string) int {
	t.Helper()
	ctx := chromiumtest.New(t, 1240, 1754)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs)); err != nil {
		t.Fatalf("open the report: %v", err)
	}
	yes := true
	res, err := chromedp.Call(ctx, page.PrintToPDF, page.PrintToPDFParams{PreferCSSPageSize: &yes, PrintBackground: &yes})
	if err != nil {
		t.Fatalf("print to PDF: %v", err)
	}
	pdf := res.Data
	if err := os.WriteFile(out, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	return len(regexp.MustCompile(`/Type\s*/Page[^s]`).FindAll(pdf, -1))
}
