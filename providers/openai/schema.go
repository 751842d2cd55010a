package openai

import (
	"encoding/json"
	"regexp"

	"github.com/enforcer-go/enforcer/internal/wireschema"
)

// schemaName is what OpenAI accepts as a response format name.
var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// inlineRoot prepares a schema for the wire (OpenAI wants "type":
// "object" at the root of tool parameters and response formats) and names
// it after its inlined definition, or "output".
func inlineRoot(b json.RawMessage) (string, map[string]any, error) {
	name, schema, err := wireschema.InlineRoot(b)
	if !schemaName.MatchString(name) {
		name = "output"
	}
	return name, schema, err
}
