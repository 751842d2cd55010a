package enforce

// Unmarshal lets the external tests hold the decoder to encoding/json.
var Unmarshal = unmarshal

// WithoutFastPath is s judged by gojsonschema alone, as before the
// compiled evaluator: for benchmarks that compare the two.
func WithoutFastPath(s *Schema) *Schema {
	c := *s
	c.fast = nil
	return &c
}
