package baccarat

// NoThirdCard stands for "the Player did not draw" where BankerDraws takes the value of
// the Player's third card.
const NoThirdCard = -1

// PlayerDraws reports whether the Player Hand draws a third card on its two-card total,
// once neither hand has a Natural: it draws on 0-5 and stands on 6-7
// (Baccarat Table of Play, RWS Baccarat 3.12; NC Tournament 3.7; NC Insurance 3.15).
func PlayerDraws(playerTwoCard int) bool { return playerTwoCard <= 5 }

// bankerDrawsOn lists, for the Banker's two-card totals 3 to 6, the values of the Player's
// third card on which the Banker draws, as a bit set (bit v set: draws when the third
// card is worth v). Transcribed from the Baccarat Table of Play, RWS Baccarat 3.12:
//
//	3: 0-1-2-3-4-5-6-7-9   4: 2-3-4-5-6-7   5: 4-5-6-7   6: 6-7
var bankerDrawsOn = [10]uint16{
	3: 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<9,
	4: 1<<2 | 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7,
	5: 1<<4 | 1<<5 | 1<<6 | 1<<7,
	6: 1<<6 | 1<<7,
}

// BankerDraws reports whether the Banker Hand draws a third card on its two-card total,
// once neither hand has a Natural. playerThird is the point value of the Player's third
// card, or NoThirdCard when the Player stood.
//
// When the Player stood the Banker draws on 0-5 and stands on 6-7 (RWS Baccarat 3.11).
// Otherwise the Table of Play decides (RWS Baccarat 3.12): 0-2 draw, 3-6 by the Player's
// third card, 7 stands.
func BankerDraws(bankerTwoCard, playerThird int) bool {
	if playerThird == NoThirdCard {
		return bankerTwoCard <= 5
	}
	switch {
	case bankerTwoCard <= 2:
		return true
	case bankerTwoCard <= 6:
		return bankerDrawsOn[bankerTwoCard]&(1<<playerThird) != 0
	}
	return false
}
