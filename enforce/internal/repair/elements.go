package repair

// Contract is the contract m judges for: a hook of enforce.Elements,
// which delivers a mended answer's elements at its end.
func (m *Stream) Contract() StreamContract { return m.c }
