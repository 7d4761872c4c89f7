// Package table is one baccarat table's live state as a pure node: device events (the
// shoe, the shuffler), commands and buttons go in, each stamped with its time, and the
// time itself (Tick) when the node waits for one (Due); a Ready
// comes out saying what must happen, in order (the records to journal, then the messages
// to publish, the acknowledgements to the shoe, the tower light and buzzer, the replies
// to commands); its owner carries it out and calls Advance. The node does no I/O, reads
// no clock and starts no goroutine. It holds what it needs across events: the round
// controller, the shoe's 16-bit card and signal numbers extended to 64 bits, the shuffled
// sets waiting to be loaded, the messages' numbering and roads. Open starts a node from a
// journal (replaying it) and Persist writes a Ready's records; the loop that runs a node
// is the daemon's.
package table
