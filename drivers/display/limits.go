package display

import (
	"encoding/json"
	"fmt"
	"time"
)

// MaxCommandSize is the largest command payload the client takes, in bytes. A larger
// one is answered at once with TooLargeReply and never handed to Commands; the broker's
// packet limit (DefaultMaxPacketSize in broker/, max_packet_size in Mosquitto) bounds
// what reaches the client at all.
const MaxCommandSize = 16 << 10

// TooLargeReply is the payload answering a command of size bytes over MaxCommandSize:
// like BusyReply, without the request, which is not repeated.
func TooLargeReply(table, role string, size int, at time.Time) []byte {
	// Marshal cannot fail on a struct of strings, a bool and an int.
	b, _ := json.Marshal(struct {
		Schema int    `json:"schema"`
		Table  string `json:"table"`
		At     string `json:"at"`
		Role   string `json:"role"`
		OK     bool   `json:"ok"`
		Error  string `json:"error"`
	}{2, table, at.UTC().Format(time.RFC3339Nano), role, false,
		fmt.Sprintf("command refused: the command is %d bytes, over the limit of %d", size, MaxCommandSize)})
	return b
}
