// Package table is one baccarat table's live state as a pure node. Device events (the
// shoe, the shuffler), commands and buttons go in, each stamped with its time; so does
// the time itself (Tick), when the node waits for one (Due). A Ready comes out saying
// what must happen, in order: the records to journal, then the messages to publish, the
// acknowledgements to the shoe, the tower light and buzzer, the replies to commands. Its
// owner carries it out and calls Advance. The node does no I/O, reads no clock and
// starts no goroutine. It holds what it needs across events: the round controller, the
// shoe's 16-bit card and signal numbers extended to 64 bits, the shuffled sets waiting to
// be loaded, the cards waiting for their set's report, the messages' numbering and
// roads, the tower light's levels and the replies to recent command ids. Open starts a
// node from a journal (replaying it) and Persist writes a Ready's records; the loop that
// runs a node is the daemon's.
package table
