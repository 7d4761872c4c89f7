//go:build !linux && !darwin

package simulator

import (
	"errors"
	"os"
	"runtime"
)

// ErrNoPTY is the error of OpenPort on a system whose pseudo-terminals the simulator does
// not drive (windows among them): it simulates the shoe and the shuffler on Linux and
// macOS only.
var ErrNoPTY = errors.New("the shoe and shuffler simulator needs pseudo-terminals, which it drives on Linux and macOS only (on " + runtime.GOOS + ", run it under WSL or on a Linux or macOS machine, or connect real devices)")

func openPTY() (master, slave *os.File, err error) { return nil, nil, ErrNoPTY }

func inputQueued(*os.File) (int, error) { return 0, ErrNoPTY }

func flushInput(*os.File) error { return ErrNoPTY }
