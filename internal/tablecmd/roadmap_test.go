package tablecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/roadmap"
)

// roadmapRun runs "tablectl roadmap args..." in-process with stdin as its input.
func roadmapRun(t *testing.T, ctx context.Context, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(ctx, append([]string{"roadmap"}, args...), cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return out.String(), err
}

func TestRoadmapJSON(t *testing.T) {
	t.Parallel()
	// Rounds: T, B, B (Banker pair), P, P (natural), T, B.
	out, err := roadmapRun(t, context.Background(), "T B Bb\nP Pn T\tB\n", "--json", "--cards-remaining", "390")
	if err != nil {
		t.Fatal(err)
	}
	var doc roadmap.JSON
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if len(doc.BeadPlate) != 7 || doc.BeadPlate[6] != (roadmap.JSONBead{Col: 1, Row: 0, Outcome: "B"}) ||
		doc.BeadPlate[4] != (roadmap.JSONBead{Col: 0, Row: 4, Outcome: "P", Natural: true}) {
		t.Errorf("bead plate %+v", doc.BeadPlate)
	}
	// Big Road: the leading tie on the first Banker cell, the tie of round 6 on the
	// second Player cell.
	wantBig := []roadmap.JSONBigRoad{
		{Col: 0, Row: 0, Outcome: "B", Ties: 1},
		{Col: 0, Row: 1, Outcome: "B", BankerPair: true},
		{Col: 1, Row: 0, Outcome: "P"},
		{Col: 1, Row: 1, Outcome: "P", Ties: 1},
		{Col: 2, Row: 0, Outcome: "B"},
	}
	if len(doc.BigRoad) != len(wantBig) {
		t.Fatalf("big road %+v", doc.BigRoad)
	}
	for i := range wantBig {
		if doc.BigRoad[i] != wantBig[i] {
			t.Errorf("big road cell %d: got %+v, want %+v", i, doc.BigRoad[i], wantBig[i])
		}
	}
	// Columns 2, 2, 1. Big Eye Boy: column 2 row 2 against column 1 (2 long): red; column
	// 3 row 1, columns 2 and 1 equal: red. The Small Road has no mark yet.
	if len(doc.BigEyeBoy.Marks) != 2 || doc.BigEyeBoy.Marks[0] != roadmap.Red || doc.BigEyeBoy.Marks[1] != roadmap.Red ||
		doc.BigEyeBoy.Cells[1] != (roadmap.JSONMarkCell{Col: 0, Row: 1, Mark: roadmap.Red}) {
		t.Errorf("big eye boy %+v", doc.BigEyeBoy)
	}
	if len(doc.SmallRoad.Marks) != 0 || len(doc.CockroachPig.Cells) != 0 {
		t.Errorf("small road %+v, cockroach pig %+v", doc.SmallRoad, doc.CockroachPig)
	}
	// A next Banker: column 3 row 2 against column 2 (2 long) red, against column 1 red.
	// A next Player: column 4 row 1, column 3 (1 long) against 2 and 1 (2 long): blue.
	wantPred := roadmap.JSONPredictions{
		Banker: roadmap.JSONNext{BigEyeBoy: roadmap.Red, SmallRoad: roadmap.Red},
		Player: roadmap.JSONNext{BigEyeBoy: roadmap.Blue, SmallRoad: roadmap.Blue},
	}
	if doc.Predictions != wantPred {
		t.Errorf("predictions %+v, want %+v", doc.Predictions, wantPred)
	}
	st := doc.Stats
	if st.Rounds != 7 || st.Banker != 3 || st.Player != 2 || st.Tie != 2 || st.BankerPairs != 1 ||
		st.Naturals != 1 || st.LongestBanker != 2 || st.LongestPlayer != 2 || st.CardsRemaining == nil || *st.CardsRemaining != 390 {
		t.Errorf("stats %+v", st)
	}
}

func TestRoadmapBadToken(t *testing.T) {
	t.Parallel()
	_, err := roadmapRun(t, context.Background(), "B P\nT Bq P", "--json")
	var te *roadmap.TokenError
	if !errors.As(err, &te) || te.Token != "Bq" || te.Index != 4 || te.Line != 2 || te.Column != 3 {
		t.Fatalf("error %v; want token 4 \"Bq\" at line 2, column 3", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `token 4 "Bq"`) || !strings.Contains(msg, "line 2, column 3") {
		t.Errorf("message %q does not name the token and its position", msg)
	}
}

func TestRoadmapText(t *testing.T) {
	t.Parallel()
	out, err := roadmapRun(t, context.Background(), "B P P", "--rows", "3", "--color", "never")
	if err != nil {
		t.Fatal(err)
	}
	// Three rows of Big Road: B in column 0, P P in column 1.
	if !strings.Contains(out, "Big Road\n  B P\n  . P\n  . .\n\n") || strings.Contains(out, "\x1b[") {
		t.Errorf("drawing:\n%s", out)
	}
	out, err = roadmapRun(t, context.Background(), "B P P", "--color", "always")
	if err != nil || !strings.Contains(out, "\x1b[") {
		t.Errorf("--color always: %v\n%q", err, out)
	}
}

func TestRoadmapFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--rows", "0"},
		{"--rows", "1000"},
		{"--straight-drop", "green"},
		{"--color", "sometimes"},
		{"extra"},
	} {
		if _, err := roadmapRun(t, context.Background(), "B", args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	// The straight drop drawn blue: B P P P gives the Big Eye Boy blue (row 2, 2 = 1+1)
	// then blue (row 3, the straight drop) in one column.
	out, err := roadmapRun(t, context.Background(), "B P P P", "--json", "--straight-drop", "blue")
	if err != nil || !strings.Contains(out, `"big_eye_boy":{"marks":["blue","blue"]`) {
		t.Errorf("--straight-drop blue: %v\n%s", err, out)
	}
}

func TestRoadmapCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := roadmapRun(t, ctx, "B P", "--json"); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v; want context.Canceled", err)
	}
}
