package enforce

import (
	"sync"

	"github.com/xeipuuv/gojsonschema"
)

// formatPrefix namespaces the format checkers registered below, so that
// gojsonschema's own global checkers stay as they are.
const formatPrefix = "enforcer/"

var formatMu sync.Mutex

// formatName returns the name to compile for format f. The validator
// applies format checks to numbers too and fails them, where JSON Schema
// says a format constrains strings only; a wrapper that passes non-strings
// fixes that without changing gojsonschema's global checkers.
func formatName(f string) string {
	if !gojsonschema.FormatCheckers.Has(f) {
		return f // unknown formats pass, as the specification says
	}
	name := formatPrefix + f
	formatMu.Lock()
	defer formatMu.Unlock()
	if !gojsonschema.FormatCheckers.Has(name) {
		gojsonschema.FormatCheckers.Add(name, stringFormat(f))
	}
	return name
}

type stringFormat string

func (f stringFormat) IsFormat(input any) bool {
	s, ok := input.(string)
	if !ok {
		return true
	}
	return gojsonschema.FormatCheckers.IsFormat(string(f), s)
}
