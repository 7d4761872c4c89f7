//go:build race

package analysis

// raceDetector: the tests run with the race detector.
const raceDetector = true
