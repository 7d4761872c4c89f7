//go:build race

package integrity

// raceDetector: the tests run with the race detector, which makes the statistical tests'
// dealing several times slower. Their full samples are dealt by their benchmarks, which
// .ci/run runs without it.
const raceDetector = true
