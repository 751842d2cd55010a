package agent

import (
	"bytes"
	"encoding/json"
)

// A Result saved as JSON reads back as the same Result (see
// agenttest.Replay), so a failed run can become a test. Strings hold
// valid UTF-8, as a provider's JSON does; invalid bytes are written as
// U+FFFD, as encoding/json writes them.

// toolCallJSON is a ToolCall on the wire: arguments that would not come
// back byte for byte as a JSON value (not JSON, as a truncated or cut
// reply's can be, or not in encoding/json's compact form) travel as
// argumentsText.
type toolCallJSON struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Arguments     json.RawMessage `json:"arguments,omitempty"`
	ArgumentsText *string         `json:"argumentsText,omitempty"`
}

// MarshalJSON writes the call with its arguments as the JSON value they
// are, or, when they would not read back byte for byte as one, as the
// string argumentsText.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	w := toolCallJSON{ID: c.ID, Name: c.Name}
	if len(c.Arguments) > 0 {
		if b, err := json.Marshal(c.Arguments); err == nil && bytes.Equal(b, c.Arguments) {
			w.Arguments = c.Arguments
		} else {
			text := string(c.Arguments)
			w.ArgumentsText = &text
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var w toolCallJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = ToolCall{ID: w.ID, Name: w.Name, Arguments: w.Arguments}
	if w.ArgumentsText != nil && *w.ArgumentsText != "" {
		c.Arguments = json.RawMessage(*w.ArgumentsText)
	}
	return nil
}
