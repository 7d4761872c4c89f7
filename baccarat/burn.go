package baccarat

// BurnCount is how many cards are burned after the first card of a shoe is shown, under
// the usual burn by the first card: an ace 1, two to nine their face value, a ten or a
// picture card 10. The round controller burns by it and the simulator deals by it.
func BurnCount(first Card) int {
	if first.Rank >= Ten {
		return 10
	}
	return int(first.Rank)
}
