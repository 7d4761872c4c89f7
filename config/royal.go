package config

// checkEndOfRound checks royal.end_of_round (Royal Baccarat, End of round): discard, the
// usual shoe, or reshuffle, each round dealt from a set the shuffler reports, which a
// table with no shuffler on a serial line cannot have.
func (f *file) checkEndOfRound(c *Config) {
	switch e := c.Royal.EndOfRound; {
	case e != "" && e != "discard" && e != "reshuffle":
		f.at("royal.end_of_round", "%q: want discard (squeeze play) or reshuffle (cards dealt face up)", e)
	case e == "reshuffle" && c.NoShuffler():
		f.at("royal.end_of_round", "reshuffle: each round is dealt from a set the shuffler reports, and this table has a shoe and no shuffler")
	}
}
