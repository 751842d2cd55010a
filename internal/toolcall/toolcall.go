// Package toolcall keeps the tool calls a provider or a framework
// returns well formed, one rule for the adapters, the integrations and
// the agent alike. It is the one owner of the call IDs this repository
// makes up: "call_<i>" for a call a provider returned without one
// ([ID], which [MadeUp] recognizes), and "call_<iteration>_<n>" for a
// call the loop must rename so that each call of a reply has an ID of its
// own ([Unique]). It is internal to this repository.
package toolcall

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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

// madeUp is the prefix of every ID this package makes up.
const madeUp = "call_"

// ID is the id of a reply's call i: id, or "call_<i>" when the provider
// left it out, since the tool result needs one to refer to.
func ID(id string, i int) string {
	if id == "" {
		return madeUp + strconv.Itoa(i)
	}
	return id
}

// MadeUp reports whether id has the form [ID] makes up, "call_<n>" with n
// decimal digits: an adapter whose provider takes its own call IDs back
// (Gemini) sends none for such a call, as the provider sent none. An ID
// [Unique] made is not of that form: it stands for a call whose own ID
// repeated, and is sent as the conversation carries it.
func MadeUp(id string) bool {
	n, ok := strings.CutPrefix(id, madeUp)
	if !ok || n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}

// Unique gives each of a reply's calls an ID of its own, since each
// result must name the call it answers and providers refuse a
// conversation in which two calls share one; id is where a call keeps
// its ID, which Unique rewrites. A call keeps its ID unless a call
// before it has that ID; a call without one (or with a repeated one)
// gets "call_<iteration>_<n>", n its place from 1, with "_2", "_3", …
// added while that too is taken.
func Unique[C any](calls []C, id func(*C) *string, iteration int) {
	if len(calls) == 0 {
		return
	}
	taken := make(map[string]bool, len(calls))
	renamed := make([]bool, len(calls))
	for i := range calls {
		c := *id(&calls[i])
		renamed[i] = c == "" || taken[c]
		taken[c] = true
	}
	for i := range calls {
		if !renamed[i] {
			continue
		}
		made := fmt.Sprintf(madeUp+"%d_%d", iteration, i+1)
		for k := 2; taken[made]; k++ {
			made = fmt.Sprintf(madeUp+"%d_%d_%d", iteration, i+1, k)
		}
		taken[made] = true
		*id(&calls[i]) = made
	}
}
