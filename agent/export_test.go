package agent

// The bounds of DefaultBackoff, for its test.
const (
	BackoffBase = backoffBase
	BackoffMax  = backoffMax
)

// MaxIdleChunks is how many chunks without bytes a streamed reply may
// hold, for its test.
const MaxIdleChunks = maxIdleChunks
