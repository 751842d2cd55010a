// Package exhaust is the one vocabulary of why an answer stands with
// retries left: the values of enforce.Reason on a ledger row and of
// events.ExhaustReason on the session stream.
package exhaust

// The reasons; enforce and events document each.
const (
	Repeated        = "repeated"
	BeyondRepair    = "beyond-repair"
	ValidatorFailed = "validator-failed"
	Budget          = "budget"
	TokenBudget     = "token-budget"
	RequestBudget   = "request-budget"
	MoneyBudget     = "money-budget"
	Tripwire        = "tripwire"
)

// Reasons are all of them, in the order above.
var Reasons = []string{Repeated, BeyondRepair, ValidatorFailed, Budget, TokenBudget, RequestBudget, MoneyBudget, Tripwire}
