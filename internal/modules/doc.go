// Package modules has no code. Its test runs the tests of the
// repository's other Go modules — the provider adapters, the framework
// integrations, the session log on JetStream, traces, the test-only
// modules and the examples that link them, each a module of its own so
// that the core module depends on nothing but its three libraries — so
// that `go test ./...` at the root tests every module, as the README
// promises, and checks that every module carries the repository's
// licence.
package modules
