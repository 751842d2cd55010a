package enforce

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// TextCall is a tool call read back from a reply's text ([ReadTextCalls]).
type TextCall struct {
	// Tool is the tool named, and ID the call's ID where the model wrote
	// one ("" otherwise).
	Tool, ID string
	// Arguments are the arguments' JSON exactly as written in the text.
	Arguments string
}

// ReadTextCalls reads content as the tool calls a provider's server failed
// to parse and left in it as text ([RepairToolText]): one or more
// <tool_call>{…}</tool_call> (Hermes, Qwen), [TOOL_CALLS][{…}] (Mistral),
// <|python_tag|>{…} (Llama) or a bare {…}, each object holding exactly a
// "name", "arguments" (or "parameters") and optionally a string "id". ok
// is false, and calls nil, unless that is the whole content, nothing is
// cut off and each call names a tool declared says is one.
func ReadTextCalls(content string, declared func(tool string) bool) (calls []TextCall, ok bool) {
	// One reading, or none (the ledger guide's rule): text around the
	// calls may be the answer, a call of no declared tool may be an
	// answer shaped like one, an unclosed form was cut off. Each is
	// refused whole rather than read in part.
	if !utf8.ValidString(content) { // invalid UTF-8 would decode as U+FFFD: not what was written
		return nil, false
	}
	text := strings.Trim(content, jsonSpace)
	switch {
	case strings.HasPrefix(text, hermesOpen):
		for text != "" {
			rest, found := strings.CutPrefix(text, hermesOpen)
			if !found {
				return nil, false
			}
			c, n, ok := readTextCall(rest)
			if !ok {
				return nil, false
			}
			if text, found = strings.CutPrefix(strings.TrimLeft(rest[n:], jsonSpace), hermesClose); !found {
				return nil, false
			}
			text = strings.TrimLeft(text, jsonSpace)
			calls = append(calls, c)
		}
	case strings.HasPrefix(text, mistralTag):
		calls = readTextCallList(text[len(mistralTag):])
	case strings.HasPrefix(text, llamaTag):
		calls = readOneTextCall(text[len(llamaTag):])
	case strings.HasPrefix(text, "{"):
		calls = readOneTextCall(text)
	}
	if len(calls) == 0 {
		return nil, false
	}
	for _, c := range calls {
		if !declared(c.Tool) {
			return nil, false
		}
	}
	return calls, true
}

// The forms' markers, as the servers' chat templates write them.
const (
	hermesOpen, hermesClose = "<tool_call>", "</tool_call>"
	mistralTag              = "[TOOL_CALLS]"
	llamaTag                = "<|python_tag|>"
	jsonSpace               = " \t\r\n"
)

// readOneTextCall reads text as exactly one call object; nil otherwise.
func readOneTextCall(text string) []TextCall {
	c, n, ok := readTextCall(text)
	if !ok || strings.Trim(text[n:], jsonSpace) != "" {
		return nil
	}
	return []TextCall{c}
}

// readTextCallList reads text as exactly one JSON array of call objects;
// nil otherwise.
func readTextCallList(text string) []TextCall {
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil
	}
	var calls []TextCall
	for dec.More() {
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil
		}
		c, n, ok := readTextCall(string(raw))
		if !ok || n != len(raw) {
			return nil
		}
		calls = append(calls, c)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return nil
	}
	if strings.Trim(text[dec.InputOffset():], jsonSpace) != "" {
		return nil
	}
	return calls
}

// readTextCall reads the call object text begins with (after JSON
// whitespace): n is where the object ends. ok is false for anything but
// an object holding a string "name", one of "arguments" and "parameters",
// and at most a string "id", each once.
func readTextCall(text string) (c TextCall, n int, ok bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return TextCall{}, 0, false
	}
	var named, argued, identified bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return TextCall{}, 0, false
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return TextCall{}, 0, false
		}
		var seen *bool
		switch key, _ := tok.(string); key {
		case "name":
			seen = &named
			ok = raw[0] == '"' && json.Unmarshal(raw, &c.Tool) == nil
		case "arguments", "parameters":
			seen = &argued
			c.Arguments, ok = string(raw), true
		case "id":
			seen = &identified
			ok = raw[0] == '"' && json.Unmarshal(raw, &c.ID) == nil
		default:
			return TextCall{}, 0, false
		}
		if !ok || *seen {
			return TextCall{}, 0, false
		}
		*seen = true
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || !named || !argued {
		return TextCall{}, 0, false
	}
	return c, int(dec.InputOffset()), true
}
