// Package oracle has no code. Its tests hold enforce's verdicts to an
// independent validator (github.com/santhosh-tekuri/jsonschema/v6): a
// differential fuzz test over generated schemas and answers, and a run
// over a corpus of real-world schemas. Its benchmarks time enforce beside
// other Go validators (gojsonschema, santhosh-tekuri/jsonschema,
// github.com/google/jsonschema-go) on the same contract and answer. And
// it writes and holds enforce's label tables (canonical decompositions,
// combining classes, full case folding) to golang.org/x/text. A
// JUnit consumer that is not ours (github.com/joshdk/go-junit) reads
// `enforcer eval -junit`'s file back, as CI reads it. It is a module of its own so that the core module keeps its three
// dependencies; the test command (internal/testall) runs it.
package oracle
