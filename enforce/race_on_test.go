//go:build race

package enforce_test

// underRace: the race detector slows the corpus tests tenfold, so they
// read a fixed sample of the corpus.
func init() { underRace = true }
