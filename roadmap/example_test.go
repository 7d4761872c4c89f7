package roadmap_test

import (
	"fmt"

	"github.com/tablectl/tablectl/roadmap"
)

func Example() {
	m, err := roadmap.New(roadmap.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rounds, err := roadmap.ParseRounds("B B P B")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rounds {
		if err := m.Add(r); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Big Road columns 2, 1, 1: the Big Eye Boy's first mark is at column 3 row 1 (column 2 has
	// no row 2): columns 2 and 1 are 1 and 2 long, blue.
	for _, c := range m.Derived(roadmap.BigEyeBoy) {
		fmt.Printf("big eye boy: %s at column %d row %d\n", c.Mark, c.Col, c.Row)
	}
	p := m.Predictions()
	fmt.Println("next banker:", p.Banker[roadmap.BigEyeBoy], "next player:", p.Player[roadmap.BigEyeBoy])
	if _, err := roadmap.ParseRounds("B P Bx"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// big eye boy: blue at column 0 row 0
	// next banker: blue next player: red
	// token 3 "Bx" (line 1, column 5): unknown mark "x" at character 2: after B, P or T only b, p and n may follow
}
