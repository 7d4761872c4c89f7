package analysis

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText prints the report as aligned tables for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "rule set %s, %d decks, %d ordered 6-card sequences\n\n", r.Rules, r.Decks, uint64(r.TotalWeight))
	fmt.Fprintln(tw, "outcome\tweight\tprobability\t")
	for _, o := range []struct {
		name string
		w    Weight
	}{{"banker", r.Outcomes.Banker}, {"player", r.Outcomes.Player}, {"tie", r.Outcomes.Tie}} {
		fmt.Fprintf(tw, "%s\t%d\t%.6f\t\n", o.name, uint64(o.w), float64(o.w)/float64(r.TotalWeight))
	}
	fmt.Fprintln(tw, "\t\t\t")
	fmt.Fprintln(tw, "bet\tresult\tpays\tweight\tprobability\thouse edge %\tRTP %\t")
	for _, b := range r.Bets {
		for i, l := range b.Results {
			name, edge, rtp := "", "", ""
			if i == 0 {
				name, edge, rtp = b.Bet.String(), fmt.Sprintf("%.4f", b.HouseEdgePercent), fmt.Sprintf("%.4f", b.RTPPercent)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.6f\t%s\t%s\t\n", name, l.Result, pays(l), uint64(l.Weight), l.Probability, edge, rtp)
		}
	}
	if len(r.Insurance) > 0 {
		fmt.Fprintln(tw, "\t\t\t\t\t\t\t")
		fmt.Fprintln(tw, "insurance\twhen\tplayer\tbanker\tpays\toffered %\thouse edge %\t")
		for _, in := range r.Insurance {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.4f\t%.4f\t\n", in.Bet, in.When, in.Player, in.Banker, in.Pays, in.OfferedPercent, in.HouseEdgePercent)
		}
	}
	return tw.Flush()
}

func pays(l ResultLine) string {
	if l.Odds == nil {
		return "-"
	}
	return l.Odds.String()
}
