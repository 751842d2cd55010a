package eino

import (
	"context"
	"errors"

	goopenai "github.com/meguminnnnnnnnn/go-openai"

	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

// failure maps a failed call of an eino model or agent. eino passes its
// provider's error on: eino-ext's OpenAI model (and the models built on
// it: ARK's compatible mode, DeepSeek, Qwen, OpenRouter) gives the
// *APIError or *RequestError of its OpenAI library, which carry the HTTP
// status; another provider's error is read by its text and shape (see
// glue.Failure). None carries the response's headers, so no Retry-After
// is known: a retry waits as its policy says.
func failure(ctx context.Context, err error) error {
	var known glue.Known
	var ae *goopenai.APIError
	var re *goopenai.RequestError
	switch {
	case errors.As(err, &ae):
		known.Status = ae.HTTPStatusCode
	case errors.As(err, &re):
		known.Status = re.HTTPStatusCode
	}
	return glue.Failure(ctx, System, err, known)
}
