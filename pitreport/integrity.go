package pitreport

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/history"
)

// IntegritySheet is the integrity watch's alarms (docs/integrity.md), one a row: the
// table, the kind, what was found, the shoe and the other shoe it names, when, what the
// evidence says in short, and the acknowledgement.
func IntegritySheet(as []history.IntegrityAlarm, loc *time.Location) Sheet {
	s := Sheet{Title: "Integrity alarms", Note: "Each alarm the archive raised at a shoe's end, its evidence in short, and its acknowledgement.",
		Columns: []string{"table", "kind", "alarm", "shoe", "other shoe", "since", "raised", "evidence", "acknowledged by", "at", "note"},
		Num:     make([]bool, 11)}
	for _, a := range as {
		other := ""
		if o := a.Evidence.Other; o != nil {
			other = shoeText(*o, loc)
		}
		s.Rows = append(s.Rows, []string{a.Table, a.Kind, a.Text, shoeText(a.Evidence.Shoe, loc), other, Clock(a.Since, loc),
			Clock(a.Raised, loc), EvidenceText(a.Evidence), by(a.AckRole, a.AckBy), Clock(a.AckAt, loc), a.AckNote})
	}
	return s
}

// shoeText names a shoe for a sheet: "pit3-t07 shoe 17 (set 4) from 14:03".
func shoeText(r history.ShoeRef, loc *time.Location) string {
	s := r.Table + " shoe " + strconv.FormatUint(uint64(r.Shoe), 10)
	if r.Set != "" {
		s += " (set " + r.Set + ")"
	}
	if !r.Started.IsZero() {
		s += " from " + Stamp(r.Started, loc)
	}
	return s
}

// EvidenceText is an alarm's evidence in a line: the runs (positions counted from 1),
// the statistic and p-values, the cards named, the rounds counted.
func EvidenceText(e history.IntegrityEvidence) string {
	var parts []string
	for _, r := range e.Runs {
		parts = append(parts, fmt.Sprintf("%d cards from card %d here and %d there: %s", r.Len, r.A+1, r.B+1, r.Cards))
	}
	if e.Alarm > 0 {
		parts = append(parts, fmt.Sprintf("%d neighbours kept, %.1f expected, p = %.3g; combined over %d sets p = %.3g (alarm at %.3g)",
			e.Neighbours, e.Expected, e.P, len(e.PS), e.Combined, e.Alarm))
	}
	for _, c := range e.Over {
		parts = append(parts, fmt.Sprintf("%s dealt %d times, %d allowed", c.Card, c.Dealt, c.Allowed))
	}
	for _, l := range []struct {
		what  string
		cards []string
	}{{"missing", e.Missing}, {"foreign", e.Foreign}, {"out of the order", e.Misplaced}} {
		if len(l.cards) > 0 {
			parts = append(parts, l.what+" "+strings.Join(l.cards, " "))
		}
	}
	if e.Outcome != "" {
		parts = append(parts, fmt.Sprintf("%s %d of %d rounds, %.1f expected at %.6f; CUSUM %.2f reached %.2f", e.Outcome, e.Seen, e.Rounds,
			e.RoundsExpected, e.P0, e.Sum, e.H))
	}
	return strings.Join(parts, "; ")
}

// PositionsSheet is the position test of COMAR 36.05.02.17 over a table's sets: a row
// for each card, how many times it lay in each part of the first positions; the note
// gives the chi-square test and whether it passes at 95%.
func PositionsSheet(r history.PositionsReport) Sheet {
	verdict := "passes"
	if !r.Passes {
		verdict = "fails"
	}
	s := Sheet{Title: "Card positions (COMAR 36.05.02.17)",
		Note: fmt.Sprintf("Table %s: %d sets tallied (%d dealt shorter than %d cards left out), their first %d cards in %d parts of %d. Chi-square %.1f, %d degrees of freedom, p = %.4g: the test %s at 95%% confidence.",
			r.Table, r.Sets, r.Short, r.Depth, r.Depth, r.Buckets, r.Depth/max(r.Buckets, 1), r.Chi2, r.DF, r.P, verdict),
		Columns: []string{"card"}, Num: []bool{false}}
	for b := range r.Buckets {
		w := r.Depth / r.Buckets
		s.Columns = append(s.Columns, fmt.Sprintf("cards %d-%d", b*w+1, (b+1)*w))
		s.Num = append(s.Num, true)
	}
	for i, c := range r.Cards {
		row := []string{c}
		for _, n := range r.Counts[i] {
			row = append(row, strconv.FormatInt(n, 10))
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}
