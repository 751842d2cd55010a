package enforce

// WithoutFastPath is s judged by gojsonschema alone, as before the
// compiled evaluator, its issues too: for benchmarks that compare the two.
func WithoutFastPath(s *Schema) *Schema {
	c := *s
	c.judging = &parts{gs: s.parts().gs.Alone(), work: s.parts().work}
	c.judging.once.Do(func() {})
	return &c
}

// CompileSchemaUncached is CompileSchema compiling anew, for benchmarks
// of the compile itself.
func CompileSchemaUncached(b []byte) (*Schema, error) { return compileSchema(b) }
