package enforce

// WithoutFastPath is s judged by gojsonschema alone, as before the
// compiled evaluator, its issues too: for benchmarks that compare the two.
func WithoutFastPath(s *Schema) *Schema {
	c := *s
	c.fast = nil
	c.gs = s.gs.Alone()
	return &c
}
