package display

import (
	"fmt"
	"time"

	"github.com/tablectl/tablectl/api"
)

// MaxCommandSize is the largest command payload the client takes, in bytes. A larger
// one is answered at once with TooLargeReply and never handed to Commands; the broker's
// packet limit (DefaultMaxPacketSize in broker/, max_packet_size in Mosquitto) bounds
// what reaches the client at all.
const MaxCommandSize = api.MaxCommandBytes

// TooLargeReply is the payload answering a command of size bytes over MaxCommandSize:
// like BusyReply, with the command's id (when it had one) but without the request, which
// is not repeated.
func TooLargeReply(table, role, id string, size int, at time.Time) []byte {
	return refusal(table, role, id, fmt.Sprintf("command refused: the command is %d bytes, over the limit of %d", size, MaxCommandSize), nil, at)
}
