package anthropic

import (
	"encoding/json"

	"github.com/enforcer-go/enforcer/providers/internal/wire"
)

// inlineRoot prepares a schema for the wire: an input schema must have
// "type": "object" at its root.
func inlineRoot(b json.RawMessage) (map[string]any, error) {
	_, schema, err := wire.InlineRoot(b)
	return schema, err
}
