package console

import (
	"net/http"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/irregularities"
)

// Vocabulary is what GET /api/commands gives the pages: the roles in rank order, every
// command the table takes (api.Commands) with the fields it takes and its lowest role,
// the irregularities a person reports with their lowest role, and the options a box may
// take. The pages build their forms from it, so they offer what the table takes.
type Vocabulary struct {
	Roles    []string      `json:"roles"`
	Commands []CommandView `json:"commands"`
	Reports  []ReportView  `json:"reports"`
	Options  []OptionView  `json:"options"`
}

// OptionView is one option a box_option command records, with the lowest role that
// records it.
type OptionView struct {
	Option string `json:"option"`
	Role   string `json:"role"`
}

// CommandView is one command of the table as the pages read it.
type CommandView struct {
	Cmd      string   `json:"cmd"`
	Title    string   `json:"title"`
	Takes    []string `json:"takes"`
	Role     string   `json:"role"`
	RoleNote string   `json:"role_note,omitempty"`
	Does     string   `json:"does"`
}

// ReportView is one irregularity a report may name: its kind, the lowest role that
// reports it, and what a display says of it.
type ReportView struct {
	Kind    string `json:"kind"`
	Role    string `json:"role"`
	Display string `json:"display"`
}

// vocabulary is the Vocabulary of this version of tablectl.
func vocabulary() Vocabulary {
	v := Vocabulary{Commands: []CommandView{}, Reports: []ReportView{}, Options: []OptionView{}}
	for _, r := range api.Roles {
		v.Roles = append(v.Roles, r.String())
	}
	for _, c := range api.Commands {
		takes := c.Takes
		if takes == nil {
			takes = []string{}
		}
		v.Commands = append(v.Commands, CommandView{Cmd: c.Name, Title: c.Title, Takes: takes, Role: c.Role.String(), RoleNote: c.RoleNote, Does: c.Does})
	}
	for _, k := range api.Reports {
		role, _ := api.LowestRole(api.Command{Cmd: api.CmdReport, Kind: string(k)})
		kind, _ := irregularities.ParseKind(string(k))
		v.Reports = append(v.Reports, ReportView{Kind: string(k), Role: role.String(), Display: irregularities.Lookup(kind).Display})
	}
	for _, o := range api.BoxOptions {
		role, _ := api.LowestRole(api.Command{Cmd: api.CmdBoxOption, Option: string(o)})
		v.Options = append(v.Options, OptionView{Option: string(o), Role: role.String()})
	}
	return v
}

func (s *Server) commands(w http.ResponseWriter, _ *http.Request, _ session) {
	writeJSON(w, http.StatusOK, vocabulary())
}
