// Package repair mends the form of an answer that fails as written, for
// enforce's repairs (enforce.Repairs): a markdown fence, prose around
// the value, relaxed syntax, unquoted strings, separate values gathered
// into an array, strings that spell numbers or booleans. Each mend is
// exact: the spelling changes, never what a value is. [Mender.Mend]
// mends a whole answer, asking the schema's verdicts of a [Contract];
// a [Stream] judges, as an answer arrives, what the repairs will make
// of it. It knows nothing of stages, issues or the ledger: enforce
// judges and writes those.
package repair
