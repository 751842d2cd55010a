//go:build race

package native_test

// raceEvery thins the real-world corpus under the race detector, which
// makes lowering it some ten times slower: every raceEvery-th schema (CompileSchema is most of the time).
const raceEvery = 32
