package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

// rawObject splits a JSON object into its members, each kept as raw JSON.
// The SDK takes schemas as map[string]any; raw members keep numbers and
// nesting byte for byte, where a decoded tree would not.
func rawObject(b json.RawMessage) (map[string]any, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, err
	}
	if members == nil {
		return nil, errors.New("want a JSON object, got null")
	}
	obj := make(map[string]any, len(members))
	for k, v := range members {
		obj[k] = v
	}
	return obj, nil
}

// schemaName is what OpenAI accepts as a response format name.
var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// inlineRoot prepares a schema for the wire: tool parameters and the
// response format. A root that is only a "$ref" to "#/$defs/Name", as
// enforce.SchemaFor and agent.NewTool make, gets that definition inlined
// (OpenAI wants "type": "object" at the root) and is named Name; any other
// schema is sent as is, named "output". "$defs" stays, for references
// within it.
func inlineRoot(b json.RawMessage) (string, map[string]any, error) {
	root, err := rawObject(b)
	if err != nil {
		return "", nil, err
	}
	name := "output"
	ref, _ := root["$ref"].(json.RawMessage)
	var target string
	if json.Unmarshal(ref, &target) != nil || !strings.HasPrefix(target, "#/$defs/") {
		return name, root, nil
	}
	defName := strings.TrimPrefix(target, "#/$defs/")
	var defs map[string]json.RawMessage
	if raw, _ := root["$defs"].(json.RawMessage); json.Unmarshal(raw, &defs) != nil || defs[defName] == nil {
		return name, root, nil
	}
	def, err := rawObject(defs[defName])
	if err != nil {
		return name, root, nil
	}
	// The inlined definition leaves $defs unless something else refers to it.
	if bytes.Count(b, ref) == 1 {
		delete(defs, defName)
		if len(defs) == 0 {
			delete(root, "$defs")
		} else {
			rest, err := json.Marshal(defs)
			if err != nil {
				return "", nil, err
			}
			root["$defs"] = json.RawMessage(rest)
		}
	}
	for k, v := range root {
		switch k {
		case "$ref", "$id":
		default:
			if _, clash := def[k]; !clash {
				def[k] = v
			}
		}
	}
	if schemaName.MatchString(defName) {
		name = defName
	}
	return name, def, nil
}
