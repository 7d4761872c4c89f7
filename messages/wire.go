package messages

import (
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// settlements are the round's settlements in the result message's form; nil for none.
func settlements(ss []round.Settlement) []api.Settlement {
	if len(ss) == 0 {
		return nil
	}
	out := make([]api.Settlement, len(ss))
	for i, s := range ss {
		out[i] = api.Settlement{Box: s.Wager.Box, Seat: s.Wager.Seat, Bet: s.Wager.Bet, Stake: s.Wager.Stake,
			Effective: s.Effective, Result: s.Resolution.Result, Won: s.Won, Returned: s.Returned, Rule: s.Rule,
			MayWithdraw: s.MayWithdraw, Option: s.Option}
	}
	return out
}

// windowBoxes are the boxes of the players' options window in the messages' form,
// never nil.
func windowBoxes(bs []round.WindowBox) []api.WindowBox {
	out := make([]api.WindowBox, len(bs))
	for i, b := range bs {
		out[i] = api.WindowBox{Box: b.Box, Option: b.Option}
	}
	return out
}

// mark is a derived road's mark in the roadmap message's form.
func mark(m roadmap.Mark) api.Mark {
	switch m {
	case roadmap.Red:
		return api.MarkRed
	case roadmap.Blue:
		return api.MarkBlue
	}
	return api.NoMark
}

// roads are the roads of map m in the roadmap message's form.
func roads(m *roadmap.Map) api.Roads {
	j := m.JSON()
	r := api.Roads{BeadPlate: make([]api.Bead, len(j.BeadPlate)), BigRoad: make([]api.BigRoad, len(j.BigRoad))}
	for i, b := range j.BeadPlate {
		r.BeadPlate[i] = api.Bead{Col: b.Col, Row: b.Row, Outcome: b.Outcome, Points: b.Points,
			BankerPair: b.BankerPair, PlayerPair: b.PlayerPair, Natural: b.Natural}
	}
	for i, c := range j.BigRoad {
		r.BigRoad[i] = api.BigRoad{Col: c.Col, Row: c.Row, Outcome: c.Outcome, Ties: c.Ties,
			BankerPair: c.BankerPair, PlayerPair: c.PlayerPair}
	}
	for _, d := range []struct {
		dst *api.DerivedRoad
		src roadmap.JSONDerived
	}{{&r.BigEyeBoy, j.BigEyeBoy}, {&r.SmallRoad, j.SmallRoad}, {&r.CockroachPig, j.CockroachPig}} {
		d.dst.Marks = make([]api.Mark, len(d.src.Marks))
		for i, k := range d.src.Marks {
			d.dst.Marks[i] = mark(k)
		}
		d.dst.Cells = make([]api.MarkCell, len(d.src.Cells))
		for i, c := range d.src.Cells {
			d.dst.Cells[i] = api.MarkCell{Col: c.Col, Row: c.Row, Mark: mark(c.Mark)}
		}
	}
	next := func(n roadmap.JSONNext) api.NextMarks {
		return api.NextMarks{BigEyeBoy: mark(n.BigEyeBoy), SmallRoad: mark(n.SmallRoad), CockroachPig: mark(n.CockroachPig)}
	}
	r.Predictions = api.Predictions{Banker: next(j.Predictions.Banker), Player: next(j.Predictions.Player)}
	s := j.Stats
	r.Stats = api.RoadStats{Rounds: s.Rounds, Banker: s.Banker, Player: s.Player, Tie: s.Tie,
		BankerPairs: s.BankerPairs, PlayerPairs: s.PlayerPairs, Naturals: s.Naturals,
		LongestBanker: s.LongestBanker, LongestPlayer: s.LongestPlayer, CardsRemaining: s.CardsRemaining}
	return r
}
