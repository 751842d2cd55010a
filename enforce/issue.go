package enforce

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
	"github.com/xeipuuv/gojsonschema"
)

// decodeIssue reports an answer that does not decode into the Go type, at
// the pointer of the value that did not fit.
func decodeIssue(answer string, err error) Issue {
	is := Issue{Keyword: "type", Message: quote(err.Error())}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		is.Message = quote(fmt.Sprintf("%s does not fit the Go type %s", ute.Value, ute.Type))
		is.Path = quote(jsonvalue.PointerAt(answer, int(ute.Offset)))
	}
	return is
}

// ctxSep separates gojsonschema's context path segments; a NUL cannot be
// confused with the dots that may appear in member names.
const ctxSep = "\x00"

func toIssue(re gojsonschema.ResultError) Issue {
	ptr := contextPointer(re.Context())
	switch re.Type() {
	case "required", "additional_property_not_allowed":
		if p, ok := re.Details()["property"].(string); ok {
			ptr += "/" + jsonvalue.EscapePointer(p)
		}
	}
	msg := re.Description()
	if re.Type() == "format" {
		msg = strings.ReplaceAll(msg, engine.FormatPrefix, "")
	}
	return Issue{Path: quote(ptr), Keyword: keywordOf(re.Type()), Message: quote(msg)}
}

func contextPointer(c *gojsonschema.JsonContext) string {
	if c == nil {
		return ""
	}
	parts := strings.Split(c.String(ctxSep), ctxSep)
	var b strings.Builder
	for _, p := range parts[1:] { // parts[0] is "(root)"
		b.WriteByte('/')
		b.WriteString(jsonvalue.EscapePointer(p))
	}
	return b.String()
}

// keywordOf maps gojsonschema's error type to the schema keyword.
func keywordOf(t string) string {
	switch t {
	case "invalid_type":
		return "type"
	case "additional_property_not_allowed":
		return "additionalProperties"
	case "number_any_of":
		return "anyOf"
	case "number_one_of":
		return "oneOf"
	case "number_all_of":
		return "allOf"
	case "number_not":
		return "not"
	case "array_min_items":
		return "minItems"
	case "array_max_items":
		return "maxItems"
	case "string_gte":
		return "minLength"
	case "string_lte":
		return "maxLength"
	case "array_min_properties":
		return "minProperties"
	case "array_max_properties":
		return "maxProperties"
	case "number_gte":
		return "minimum"
	case "number_gt":
		return "exclusiveMinimum"
	case "number_lte":
		return "maximum"
	case "number_lt":
		return "exclusiveMaximum"
	case "multiple_of":
		return "multipleOf"
	case "unique":
		return "uniqueItems"
	case "array_contains":
		return "contains"
	case "array_no_additional_items":
		return "additionalItems"
	case "condition_then":
		return "then"
	case "condition_else":
		return "else"
	case "invalid_property_name":
		return "propertyNames"
	case "missing_dependency":
		return "dependencies"
	case "does_not_match_pattern":
		return "pattern"
	case "false":
		return "false"
	}
	return t
}
