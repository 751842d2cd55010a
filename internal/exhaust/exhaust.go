// Package exhaust is the one vocabulary of why an answer stands with
// retries left: enforce.Reason on a ledger row and events.ExhaustReason
// on the session stream are both its Reason.
package exhaust

// Reason is why an answer was exhausted other than by running out of
// retries.
type Reason string

// The reasons; enforce and events document each.
const (
	Repeated        Reason = "repeated"
	BeyondRepair    Reason = "beyond-repair"
	ValidatorFailed Reason = "validator-failed"
	Budget          Reason = "budget"
)

// Reasons are all of them, in the order above.
var Reasons = []Reason{Repeated, BeyondRepair, ValidatorFailed, Budget}
