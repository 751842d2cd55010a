package enforce

// WithoutFastPath is s judged by gojsonschema alone, as before the
// compiled evaluator, its issues too: for benchmarks that compare the two.
func WithoutFastPath(s *Schema) *Schema {
	c := *s
	c.fast = nil
	c.gs = s.gs.Alone()
	return &c
}

// CompileSchemaUncached is CompileSchema compiling anew, for benchmarks
// of the compile itself.
func CompileSchemaUncached(b []byte) (*Schema, error) { return compileSchema(b) }
