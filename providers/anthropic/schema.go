package anthropic

import (
	"encoding/json"

	"github.com/enforcer-go/enforcer/internal/wireschema"
)

// inlineRoot prepares a schema for the wire: an input schema must have
// "type": "object" at its root.
func inlineRoot(b json.RawMessage) (map[string]any, error) {
	_, schema, err := wireschema.InlineRoot(b)
	return schema, err
}
