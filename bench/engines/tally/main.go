// Command tally deals rounds from the shoes that BenchmarkStep writes (TABLECTL_BENCH_SHOES)
// by the rule deal.js follows, with tablectl's Table of Play, and prints how many the
// Banker, the Player and a Tie won, in the form deal.js prints them: the two engines
// dealt the same rounds when the lines match.
//
//	go run ./bench/engines/tally SHOES.json ROUNDS
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/tablectl/tablectl/baccarat"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tally:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: tally SHOES.json ROUNDS")
	}
	rounds, err := strconv.Atoi(args[1])
	if err != nil || rounds < 1 {
		return fmt.Errorf("rounds %q: want a whole number above 0", args[1])
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var shoes [][]baccarat.Card
	if err := json.Unmarshal(data, &shoes); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	for i, s := range shoes {
		if len(s) < 6 {
			return fmt.Errorf("%s: shoe %d has %d cards, want 6 or more", args[0], i+1, len(s))
		}
	}
	if len(shoes) == 0 {
		return fmt.Errorf("%s: no shoe", args[0])
	}
	var won [4]int
	shoe, pos := 0, 0
	for range rounds {
		if len(shoes[shoe])-pos < 6 { // the next shoe, as deal.js and BenchmarkStep do
			shoe, pos = (shoe+1)%len(shoes), 0
		}
		c, n := baccarat.CoupOf(shoes[shoe][pos:]...)
		pos += n
		won[c.Outcome().Winner]++
	}
	fmt.Printf("(banker %d, player %d, tie %d)\n", won[baccarat.BankerWins], won[baccarat.PlayerWins], won[baccarat.Tie])
	return nil
}
