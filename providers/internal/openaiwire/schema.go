package openaiwire

import (
	"encoding/json"
	"regexp"
	"sync"

	"github.com/enforcer-go/enforcer/internal/wireschema"
	"github.com/enforcer-go/enforcer/providers/native"
)

// schemaName is what OpenAI accepts as a response format name.
var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// InlineRoot prepares a schema for the wire (OpenAI wants "type":
// "object" at the root of tool parameters and response formats) and names
// it after its inlined definition, or "output".
func InlineRoot(b json.RawMessage) (string, map[string]any, error) {
	name, schema, err := wireschema.InlineRoot(b)
	if !schemaName.MatchString(name) {
		name = "output"
	}
	return name, schema, err
}

// ResponseFormat is the name and schema of l's json_schema response
// format: the lowered schema inlined, named as the lowering names it when
// OpenAI accepts that name.
func ResponseFormat(l *native.Lowering) (string, map[string]any, error) {
	name, schema, err := InlineRoot(l.Schema)
	if l.Name != "" && schemaName.MatchString(l.Name) {
		name = l.Name
	}
	return name, schema, err
}

// Lowerings keeps the last contract lowered: the agent sends the same
// output schema on every iteration of a run. Its zero value is ready.
type Lowerings struct {
	mu       sync.Mutex
	contract string
	l        *native.Lowering
}

// Lower is contract lowered for profile p; nil for no profile (no
// WithNativeSchema) or no contract.
func (c *Lowerings) Lower(p native.Profile, contract json.RawMessage) (*native.Lowering, error) {
	if p == "" || len(contract) == 0 {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.l != nil && c.contract == string(contract) {
		return c.l, nil
	}
	l, err := native.Lower(contract, p)
	if err != nil {
		return nil, err
	}
	c.contract, c.l = string(contract), l
	return l, nil
}

// NativeReport is the report of contract lowered for p, as the adapters'
// NativeReport give it.
func NativeReport(contract []byte, p native.Profile) (native.Report, error) {
	l, err := native.Lower(contract, p)
	if err != nil {
		return native.Report{}, err
	}
	return l.Report, nil
}
