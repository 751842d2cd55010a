package genkit

import (
	"context"
	"errors"
	"time"

	"github.com/openai/openai-go"

	"github.com/enforcer-go/enforcer/integrations/internal/glue"
	"github.com/enforcer-go/enforcer/internal/retryafter"
)

// System names Genkit in *agent.ProviderError: the provider behind a
// Genkit model is the plugin's business.
const System = "genkit"

var (
	// ErrNoContract is matched by the failure of a request under
	// [Format] whose contract the middleware cannot find: no schema was
	// given, or ai.WithOutputInstructions replaced the format's own on a
	// model without constrained output, so the contract never reached
	// the model either.
	ErrNoContract = errors.New("genkit: no output contract")
	// ErrTwoJudges is matched by the failure of a request whose output
	// is judged by a Genkit format of its own (json, jsonl, array, enum):
	// Genkit would judge the answer the Guard passed again, by rules of
	// its own. Ask for [Format] instead.
	ErrTwoJudges = errors.New("genkit: the output is judged by a Genkit format; ask for enforcer's (ai.WithOutputFormat(genkit.Format))")
)

// errCut is what the streaming callback returns to stop the model's
// stream once the answer is doomed.
var errCut = errors.New("genkit: the answer was cut at its early verdict")

// failure maps a failed model call. Genkit's OpenAI-compatible plugin
// (compat_oai) passes the *openai.Error of its client on, which keeps
// the response: its status and Retry-After are read. Another plugin's
// error is read by its text and shape (glue.Failure).
func failure(ctx context.Context, err error) error {
	var known glue.Known
	var oe *openai.Error
	if errors.As(err, &oe) {
		known.Status = oe.StatusCode
		if oe.Response != nil {
			known.RetryAfter = retryafter.Read(oe.Response.Header, time.Now())
		}
	}
	return glue.Failure(ctx, System, err, known)
}
