package repair

// The hooks of enforce.Elements, which delivers a mended answer's
// elements at its end.

// Contract is the contract m judges for.
func (m *Stream) Contract() StreamContract { return m.c }

// Text is the bytes written, up to one past the size bound.
func (m *Stream) Text() string { return m.buf.String() }
