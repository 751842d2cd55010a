// Package wireschema shapes a JSON Schema for a provider's wire: the
// providers' adapters and the framework integrations send tool
// parameters and output formats through it. It is internal to this
// repository.
package wireschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
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

// InlineRoot prepares a schema for the wire: tool parameters and output
// formats. A root that is only a "$ref" to "#/$defs/Name", as
// enforce.SchemaFor and agent.NewTool make, gets that definition inlined
// (providers want "type": "object" at the root) and Name is returned; any
// other schema is returned as is, with name "". "$defs" stays, for
// references within it.
func InlineRoot(b json.RawMessage) (name string, schema map[string]any, err error) {
	root, err := rawObject(b)
	if err != nil {
		return "", nil, err
	}
	ref, _ := root["$ref"].(json.RawMessage)
	var target string
	if json.Unmarshal(ref, &target) != nil || !strings.HasPrefix(target, "#/$defs/") {
		return "", root, nil
	}
	defName := strings.TrimPrefix(target, "#/$defs/")
	var defs map[string]json.RawMessage
	if raw, _ := root["$defs"].(json.RawMessage); json.Unmarshal(raw, &defs) != nil || defs[defName] == nil {
		return "", root, nil
	}
	def, err := rawObject(defs[defName])
	if err != nil {
		return "", root, nil
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
	return defName, def, nil
}

// ObjectRoot reports whether a schema's root describes objects as it is
// sent (InlineRoot): its type is "object" (or a list naming it), or it
// has properties. Only such a schema can be a tool's parameters.
func ObjectRoot(b json.RawMessage) bool {
	_, root, err := InlineRoot(b)
	if err != nil {
		return false
	}
	raw, _ := root["type"].(json.RawMessage) // the members come raw
	var one string
	var list []string
	switch {
	case json.Unmarshal(raw, &one) == nil:
		return one == "object"
	case json.Unmarshal(raw, &list) == nil:
		return slices.Contains(list, "object")
	}
	return root["properties"] != nil
}
