package web

import (
	"encoding/json"

	"github.com/tablectl/tablectl/api"
)

// maxWarnings is how many warnings of the shoe in play the board keeps for browsers
// that connect later.
const maxWarnings = 3

// maxKept is the most events kept: the last result and the warnings.
const maxKept = 1 + maxWarnings

// kept is what a browser that connects (or reloads) is given after the retained
// topics, though MQTT retains none of it: the shoe's last result, so that a reload after
// a void round shows the void and not the round before, and the shoe's latest warnings
// that do not hold the table (the dealer's warnings, irregularities whose action is to
// continue). A new shoe forgets them.
type kept struct {
	shoe     uint32
	result   []byte
	warnings [][]byte
}

// keptFields are the fields of a message kept reads.
type keptFields struct {
	Shoe   uint32 `json:"shoe"`
	Event  string `json:"event"`
	Action string `json:"action"`
}

// note takes in one event.
func (k *kept) note(ev event) {
	state, result, irreg := api.TopicState.String(), api.TopicResult.String(), api.TopicIrregularity.String()
	switch ev.name {
	case state, result, irreg:
	default:
		return
	}
	var f keptFields
	if json.Unmarshal(ev.data, &f) != nil {
		return // "null": a cleared state
	}
	if f.Shoe != k.shoe {
		k.shoe, k.result, k.warnings = f.Shoe, nil, nil
	}
	switch {
	case ev.name == result:
		k.result = ev.data
	case ev.name == irreg && (f.Event == api.EventDealerWarning || f.Event == api.EventRaised && f.Action == "continue"):
		if len(k.warnings) == maxWarnings {
			k.warnings = append(k.warnings[:0], k.warnings[1:]...)
		}
		k.warnings = append(k.warnings, ev.data)
	}
}

// events are the kept events in the order a browser is given them.
func (k *kept) events() []event {
	var out []event
	if k.result != nil {
		out = append(out, event{name: api.TopicResult.String(), data: k.result})
	}
	for _, w := range k.warnings {
		out = append(out, event{name: api.TopicIrregularity.String(), data: w})
	}
	return out
}
