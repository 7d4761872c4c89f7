//go:build !race

package tablecmd

// raceDetector: the tests run with the race detector, which makes tablectl several times
// slower, its restarts included.
const raceDetector = false
