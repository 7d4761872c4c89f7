package baccarat

import "fmt"

// UnmarshalText reads a slot as MarshalText prints it (P1, B1, P2, B2, P3, B3, none), so
// a state message read back names its cards' slots.
func (s *Slot) UnmarshalText(b []byte) error {
	for i, name := range slotNames {
		if name == string(b) {
			*s = Slot(i)
			return nil
		}
	}
	return fmt.Errorf("slot %q: want P1, B1, P2, B2, P3, B3 or none", b)
}
