//go:build race

package native_test

// raceEnabled: the race detector makes reading the real-world corpus
// (gzip, JSON, CompileSchema, Lower) some ten times slower; its test
// runs without it.
const raceEnabled = true
