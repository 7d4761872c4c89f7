package roadmap

// JSON is the whole roadmap as one JSON object, the form a display board or a pit
// system reads:
//
//	{"bead_plate":[{"col":0,"row":0,"outcome":"B","points":7,...}, ...],
//	 "big_road":[{"col":0,"row":0,"outcome":"B","ties":0,"banker_pair":false,"player_pair":false}, ...],
//	 "big_eye_boy":{"marks":["red","blue",...],"cells":[{"col":0,"row":0,"mark":"red"}, ...]},
//	 "small_road":{...}, "cockroach_pig":{...},
//	 "predictions":{"banker":{"big_eye_boy":"red","small_road":"blue","cockroach_pig":null},"player":{...}},
//	 "stats":{...}}
//
// Lists are never null: an empty road is [].
type JSON struct {
	BeadPlate    []JSONBead      `json:"bead_plate"`
	BigRoad      []JSONBigRoad   `json:"big_road"`
	BigEyeBoy    JSONDerived     `json:"big_eye_boy"`
	SmallRoad    JSONDerived     `json:"small_road"`
	CockroachPig JSONDerived     `json:"cockroach_pig"`
	Predictions  JSONPredictions `json:"predictions"`
	Stats        JSONStats       `json:"stats"`
}

// JSONBead is a bead plate cell. Points is left out when the point total is unknown.
type JSONBead struct {
	Col        int    `json:"col"`
	Row        int    `json:"row"`
	Outcome    string `json:"outcome"` // "B", "P" or "T"
	Points     *int   `json:"points,omitempty"`
	BankerPair bool   `json:"banker_pair"`
	PlayerPair bool   `json:"player_pair"`
	Natural    bool   `json:"natural"`
}

// JSONBigRoad is a Big Road cell (see BigRoadCell).
type JSONBigRoad struct {
	Col        int    `json:"col"`
	Row        int    `json:"row"`
	Outcome    string `json:"outcome"` // "B" or "P"
	Ties       int    `json:"ties"`
	BankerPair bool   `json:"banker_pair"`
	PlayerPair bool   `json:"player_pair"`
}

// JSONDerived is a derived road: its marks in the order they were added, and the same
// marks as drawn cells.
type JSONDerived struct {
	Marks []Mark         `json:"marks"`
	Cells []JSONMarkCell `json:"cells"`
}

// JSONMarkCell is a cell of a derived road.
type JSONMarkCell struct {
	Col  int  `json:"col"`
	Row  int  `json:"row"`
	Mark Mark `json:"mark"`
}

// JSONNext is the mark each derived road would add on one next result; null for none.
type JSONNext struct {
	BigEyeBoy    Mark `json:"big_eye_boy"`
	SmallRoad    Mark `json:"small_road"`
	CockroachPig Mark `json:"cockroach_pig"`
}

// JSONPredictions are the marks the next Banker and the next Player result would add.
type JSONPredictions struct {
	Banker JSONNext `json:"banker"`
	Player JSONNext `json:"player"`
}

// JSONStats are the shoe's statistics (see Stats); cards_remaining is null when unknown.
type JSONStats struct {
	Rounds         int  `json:"rounds"`
	Banker         int  `json:"banker"`
	Player         int  `json:"player"`
	Tie            int  `json:"tie"`
	BankerPairs    int  `json:"banker_pairs"`
	PlayerPairs    int  `json:"player_pairs"`
	Naturals       int  `json:"naturals"`
	LongestBanker  int  `json:"longest_banker_streak"`
	LongestPlayer  int  `json:"longest_player_streak"`
	CardsRemaining *int `json:"cards_remaining"`
}

// JSON returns the roadmap as its JSON document, ready for encoding/json.
func (m *Map) JSON() JSON {
	j := JSON{
		BeadPlate: make([]JSONBead, len(m.rounds)),
		BigRoad:   make([]JSONBigRoad, len(m.big)),
	}
	for i, r := range m.rounds {
		p := m.BeadPos(i)
		b := JSONBead{Col: p.Col, Row: p.Row, Outcome: r.Winner.String(),
			BankerPair: r.BankerPair, PlayerPair: r.PlayerPair, Natural: r.Natural}
		if r.Points != UnknownPoints {
			b.Points = &r.Points
		}
		j.BeadPlate[i] = b
	}
	for i, c := range m.big {
		j.BigRoad[i] = JSONBigRoad{Col: c.Col, Row: c.Row, Outcome: c.Winner.String(),
			Ties: c.Ties, BankerPair: c.BankerPair, PlayerPair: c.PlayerPair}
	}
	for i, dst := range [3]*JSONDerived{&j.BigEyeBoy, &j.SmallRoad, &j.CockroachPig} {
		cells := m.derived[i].cells
		dst.Marks = make([]Mark, len(cells))
		dst.Cells = make([]JSONMarkCell, len(cells))
		for n, c := range cells {
			dst.Marks[n] = c.Mark
			dst.Cells[n] = JSONMarkCell{Col: c.Col, Row: c.Row, Mark: c.Mark}
		}
	}
	next := func(p [3]Mark) JSONNext {
		return JSONNext{BigEyeBoy: p[BigEyeBoy], SmallRoad: p[SmallRoad], CockroachPig: p[CockroachPig]}
	}
	j.Predictions = JSONPredictions{Banker: next(m.pred.Banker), Player: next(m.pred.Player)}
	s := m.stats
	j.Stats = JSONStats{Rounds: s.Rounds, Banker: s.Banker, Player: s.Player, Tie: s.Tie,
		BankerPairs: s.BankerPairs, PlayerPairs: s.PlayerPairs, Naturals: s.Naturals,
		LongestBanker: s.LongestBanker, LongestPlayer: s.LongestPlayer}
	if s.CardsRemaining != UnknownCards {
		j.Stats.CardsRemaining = &s.CardsRemaining
	}
	return j
}
