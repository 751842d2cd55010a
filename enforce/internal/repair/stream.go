package repair

import (
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// A StreamContract is the schema a [Stream] judges an answer for.
type StreamContract interface {
	// Check is the verdict on the whole answer, repairs and all.
	Check(answer string) error
	// TooLong is the verdict on an answer past the size bound.
	TooLong() error
	// Incremental judges an answer as written, without repairs, as its
	// bytes arrive; with schemaVerdicts false it gives early verdicts at
	// json-parse only.
	Incremental(schemaVerdicts bool) Incremental
}

// An Incremental judges an answer as its bytes arrive (enforce's
// Incremental, without repairs).
type Incremental interface {
	WriteString(p string) (int, error)
	Partial() (doc []byte, settled []string)
}

// A Stream judges, as an answer's bytes arrive, what the repairs will
// make of it, so an early verdict stays one no completion and no repair
// can avoid, and Close gives what Check gives.
//
//   - With prose, syntax, quote or gather, any text may still become a
//     passing answer (a value after a preamble, a quote mended later, a
//     second value gathered with the first), so the only early verdict is
//     the size bound.
//   - With fence, an opening fence is read past, and the fence's content
//     is judged as the answer; a fence character outside a string is held
//     back, since a closing fence at the end is removed, until something
//     other than fence characters and whitespace follows it.
//   - With coerce, a value of the wrong type may still be coerced, so
//     early verdicts are at json-parse only.
//
// Close judges the whole answer with Check. The caller refuses writes
// after Close.
type Stream struct {
	c     StreamContract
	limit int
	buf   strings.Builder // every byte written, up to one past the limit
	// inner judges the answer, or the fence's content, strictly; nil
	// when only the size bound can be judged early.
	inner Incremental
	phase uint8
	fence byte // the fence's character, once one opened
	// heldFrom is where the fence characters (and whitespace) held back
	// from inner begin, -1 when none are; inStr and esc follow the
	// content's strings, in which a fence character is only a character.
	heldFrom   int
	inStr, esc bool
	// verdict is the early verdict, once given; closed, Close was called.
	verdict error
	closed  bool
}

// Phases of a Stream.
const (
	mendHold  uint8 = iota // no early verdict but the size bound
	mendLead               // before the first byte that is not whitespace
	mendOpen               // in what may be an opening fence's line
	mendInner              // inner judges what follows
)

// NewStream returns a Stream of the repairs set (not empty) for c, whose
// answers are at most limit bytes.
func NewStream(set Set, limit int, c StreamContract) *Stream {
	m := &Stream{c: c, limit: limit, heldFrom: -1}
	if set&(Prose|Syntax|Quote|Gather) != 0 {
		return m // mendHold
	}
	m.inner = c.Incremental(set&Coerce == 0)
	m.phase = mendInner
	if set&Fence != 0 {
		m.phase = mendLead
	}
	return m
}

// WriteString judges the next bytes of the answer, as enforce's
// Incremental.WriteString does.
func (m *Stream) WriteString(p string) (int, error) {
	if m.verdict != nil {
		return 0, m.verdict
	}
	before := m.buf.Len()
	keep := min(len(p), m.limit+1-before)
	m.buf.WriteString(p[:keep])
	if m.inner != nil {
		if n, err := m.step(p[:min(keep, m.limit-before)], before); err != nil {
			m.verdict = err
			return n, err
		}
	}
	if m.buf.Len() > m.limit {
		m.verdict = m.c.TooLong()
		return m.limit + 1 - before, m.verdict
	}
	return len(p), nil
}

// step judges p, the answer's bytes from offset at on, and returns how
// many of them were read when a verdict was given. A verdict on bytes
// held back from an earlier write reads none of p.
func (m *Stream) step(p string, at int) (int, error) {
	i := 0
	for i < len(p) {
		switch m.phase {
		case mendLead:
			for i < len(p) && jsonvalue.IsSpace(p[i]) {
				i++
			}
			if i == len(p) {
				return len(p), nil
			}
			if c := p[i]; c == '`' || c == '~' {
				m.fence, m.phase = c, mendOpen
				continue
			}
			m.phase = mendInner // no fence: the answer is judged as written
			if n, err := m.feed(m.buf.String()[:at+i]); err != nil {
				return max(n-at, 0), err
			}
		case mendOpen:
			nl := strings.IndexByte(p[i:], '\n')
			if nl < 0 {
				return len(p), nil
			}
			i += nl + 1
			m.phase = mendInner
			line := m.buf.String()[:at+i]
			if _, ok := Unfence(line); ok {
				continue // the fence's content begins after its line
			}
			m.fence = 0 // not a fence: the answer is judged as written
			if n, err := m.feed(line); err != nil {
				return max(n-at, 0), err
			}
		case mendInner:
			return m.content(p, i, at)
		}
	}
	return len(p), nil
}

// content feeds p[i:] to inner, holding back fence characters outside
// strings, and whitespace after them, until another byte follows.
func (m *Stream) content(p string, i, at int) (int, error) {
	if m.fence == 0 {
		n, err := m.feed(p[i:])
		return i + n, err
	}
	run := i // the bytes from run on are yet to be fed
	for j := i; j < len(p); j++ {
		c := p[j]
		if m.heldFrom >= 0 {
			if c == m.fence || jsonvalue.IsSpace(c) {
				continue
			}
			from := m.heldFrom
			m.heldFrom = -1
			if n, err := m.feed(m.buf.String()[from : at+j]); err != nil {
				return max(from+n-at, 0), err
			}
			run = j
		}
		switch {
		case m.inStr && m.esc:
			m.esc = false
		case m.inStr && c == '\\':
			m.esc = true
		case c == '"':
			m.inStr = !m.inStr
		case !m.inStr && c == m.fence:
			if n, err := m.feed(p[run:j]); err != nil {
				return run + n, err
			}
			m.heldFrom = at + j
		}
	}
	if m.heldFrom < 0 {
		if n, err := m.feed(p[run:]); err != nil {
			return run + n, err
		}
	}
	return len(p), nil
}

// feed writes p to inner and returns how many bytes of p it read.
func (m *Stream) feed(p string) (int, error) {
	if p == "" {
		return 0, nil
	}
	return m.inner.WriteString(p)
}

// Close ends the answer and returns its verdict: the early one, or
// Check's. Later calls return the same.
func (m *Stream) Close() error {
	if !m.closed {
		m.closed = true
		if m.verdict == nil {
			m.verdict = m.c.Check(m.buf.String())
		}
	}
	return m.verdict
}

// Partial is the strict judge's Partial while it judges the answer;
// nothing before, or when none does.
func (m *Stream) Partial() ([]byte, []string) {
	if m.inner == nil || m.phase != mendInner {
		return nil, nil
	}
	return m.inner.Partial()
}
