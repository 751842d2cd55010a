package scan

// The hooks of enforce.Elements, which reads an answer's elements as
// they close.

// PassedIn reports whether every value that ended in the array at stack
// index d passed the subschema its path gives it, by the fast path (see
// passesHere), with no verdict given; where that array just ended (d is
// the depth), whether it passed, with the values before it in its
// container. False where the Scanner does not check values as they end.
func (st *Scanner) PassedIn(d int) bool {
	switch {
	case !st.inc || st.verdict != nil || d > len(st.stack):
		return false
	case d < len(st.stack):
		f := &st.stack[d]
		return !f.obj && f.c != nil && !f.bad
	case d == 0:
		return st.rootOK
	}
	return !st.stack[d-1].bad
}

// Text is the bytes written, up to one past the size bound.
func (st *Scanner) Text() string { return st.buf.String() }
