//go:build race

package enforce

// raceSample: under the race detector the internal corpus tests read a
// fixed sample of the corpus (underRace is the external tests').
func init() { raceSample = true }
