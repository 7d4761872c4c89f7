//go:build race

package roadmap

// raceDetector: the tests run with the race detector, which makes the comparison with
// the naive roads several times slower. Its full sample is checked by its benchmark,
// which .ci/run runs without it.
const raceDetector = true
