// Command tally deals rounds from the shoes that BenchmarkStep writes (TABLECTL_BENCH_SHOES)
// by the rule deal.js follows, with tablectl's Table of Play, and prints how many the
// Banker, the Player and a Tie won, in the form deal.js prints them: the two engines
// dealt the same rounds when the lines match.
//
// With -bench it also times the dealing and prints it as a Go benchmark line, as deal.js
// does: tablectl's Table of Play and outcome (baccarat.Coup: the cards placed, the
// winner, the points, naturals and pairs) doing the work baccarat-engine does, and no
// more, for a like-for-like comparison beside round.Step's.
//
//	go run ./bench/engines/tally [-bench] SHOES.json ROUNDS
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/tablectl/tablectl/baccarat"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tally:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	bench := len(args) > 0 && args[0] == "-bench"
	if bench {
		args = args[1:]
	}
	if len(args) != 2 {
		return fmt.Errorf("usage: tally [-bench] SHOES.json ROUNDS")
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
	start := time.Now()
	won, pairs := deal(shoes, rounds)
	ns := time.Since(start).Nanoseconds()
	line := fmt.Sprintf("(banker %d, player %d, tie %d)", won[baccarat.BankerWins], won[baccarat.PlayerWins], won[baccarat.Tie])
	if bench {
		fmt.Printf("BenchmarkTableOfPlayGo\t%d\t%.1f ns/op\t%.0f rounds/s\t%s\t%d pairs\n",
			rounds, float64(ns)/float64(rounds), float64(rounds)/(float64(ns)/1e9), line, pairs)
		return nil
	}
	fmt.Println(line)
	return nil
}

// deal deals rounds from the shoes, moving to the next shoe when fewer than 6 cards are
// left, and counts the wins of each side and the rounds with a pair, as deal.js does.
func deal(shoes [][]baccarat.Card, rounds int) (won [4]int, pairs int) {
	shoe, pos := 0, 0
	for range rounds {
		if len(shoes[shoe])-pos < 6 { // the next shoe, as deal.js and BenchmarkStep do
			shoe, pos = (shoe+1)%len(shoes), 0
		}
		c, n := baccarat.CoupOf(shoes[shoe][pos:]...)
		pos += n
		o := c.Outcome()
		won[o.Winner]++
		if o.PlayerPair || o.BankerPair {
			pairs++
		}
	}
	return won, pairs
}
