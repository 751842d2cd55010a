package agent

// The bounds of DefaultBackoff, for its test.
const (
	BackoffBase = backoffBase
	BackoffMax  = backoffMax
)
