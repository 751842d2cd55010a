// Package modules has no code. Its tests hold the repository's Go
// modules together — the core, the provider adapters, the framework
// integrations, the session log on JetStream, traces, the test-only
// modules and the examples that link them, each a module of its own so
// that the core module depends on nothing but its three libraries: the
// workspace file all.work lists every one, so the test command
// (internal/testall) tests every one, and every one carries the
// repository's licence.
package modules
