// Package modules has no code. Its test runs the tests of the
// repository's other Go modules — the provider adapters and
// examples/openai, which live in modules of their own so that the core
// module depends on nothing but its three libraries — so that
// `go test ./...` at the root tests every module, as the README promises,
// and checks that every module carries the repository's licence.
package modules
