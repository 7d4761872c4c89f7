package display

import (
	"context"
	"fmt"
)

// WaitPendingCommands waits until exactly n commands received by c wait to be taken from
// Commands, or ctx ends: it wakes at each command queued or taken, never on a clock.
func WaitPendingCommands(ctx context.Context, c *Client, n int) error {
	for {
		pending, moved := c.cmds.movedOn()
		if pending == n {
			return nil
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return fmt.Errorf("%d commands wait, want %d: %w", pending, n, ctx.Err())
		}
	}
}
