package messages

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/internal/everyfield"
)

// messageHooks give the messages' values whose fields alone do not make a valid one.
var messageHooks = map[reflect.Type]func(n int) any{
	reflect.TypeFor[api.CardCode](): func(n int) any {
		return WireCard(baccarat.NewCard(baccarat.Rank(1+n%13), baccarat.Suit(1+n%4)))
	},
}

// tableJSON is the table's name of m's envelope as json.Marshal writes it, as the
// builder hands it to the writers.
func tableJSON(env *api.Envelope) []byte {
	b, _ := json.Marshal(env.Table)
	return b
}

// TestCardJSONWritesEveryField: the card message's writer gives json.Marshal's bytes
// with every field of api.Card set, by reflection, alone and together: a field added
// to the card message, its envelope or its slot and card, and not to the writer, fails
// here.
func TestCardJSONWritesEveryField(t *testing.T) {
	everyfield.CheckWriter(t, func(m *api.Card) ([]byte, bool) { return appendCardJSON(nil, m, tableJSON(&m.Envelope)) }, messageHooks)
}

// TestStateJSONWritesEveryField: the state message's writer gives json.Marshal's bytes
// with every field of api.State set, by reflection, alone and together, the parts it
// hands to json.Marshal (an outcome, the Insurance offers, a held irregularity, an
// options window) among them: a field added to the state message and not to the writer
// fails here.
func TestStateJSONWritesEveryField(t *testing.T) {
	everyfield.CheckWriter(t, func(s *api.State) ([]byte, bool) { return appendStateJSON(nil, s, tableJSON(&s.Envelope)) }, messageHooks)
}
