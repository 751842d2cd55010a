// Package toolcall keeps the tool calls a provider or a framework
// returns well formed, one rule for the adapters and the integrations
// alike. It is internal to this repository.
package toolcall

import (
	"encoding/json"
	"strconv"
)

// Arguments keeps a call's arguments valid JSON: none become "{}", and
// broken ones (models do emit them) a JSON string, which reaches the tool
// as such for it to refuse.
func Arguments(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// ID is the id of a reply's call i: id, or "call_<i>" when the provider
// left it out, since the tool result needs one to refer to.
func ID(id string, i int) string {
	if id == "" {
		return "call_" + strconv.Itoa(i)
	}
	return id
}
