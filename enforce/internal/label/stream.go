package label

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// A Stream follows a choice's answer as it arrives. An answer that
// begins as JSON is left to its end (or its size bound); any other is
// doomed at the first byte after which it can be no label (exactly), no
// JSON number or literal (an issue of type, not of the labels), and,
// with fold, no near-miss of a label: every completion of it then reads
// as a string that is no label. Make one with [Set.Stream].
type Stream struct {
	set   *Set
	limit int
	buf   strings.Builder
	// json: the answer began as JSON; started: a byte that is not JSON
	// whitespace has come.
	json, started bool
	exact         []int // labels whose bytes begin as the answer's do
	scalar        scalarPrefix
	// fold: a near-miss may still come; folds are the labels it may be
	// of, core the answer's runes from its first to its last that is not
	// whitespace, pending the whitespace after them.
	fold          bool
	folds         []int
	core, pending []rune
	runes         int // bytes decoded into runes for the fold
}

// Doom is why a Stream's answer can no longer pass.
type Doom uint8

// The dooms of a Stream.
const (
	Alive   Doom = iota // a completion may still pass
	TooLong             // the answer is longer than the limit
	NoLabel             // every completion reads as a string that is no label
)

// Stream returns a Stream of an answer judged up to limit bytes; fold:
// a near-miss of a label may pass (the label repair).
func (s *Set) Stream(limit int, fold bool) *Stream {
	st := &Stream{set: s, limit: limit, fold: fold, exact: make([]int, len(s.Names))}
	for i := range st.exact {
		st.exact[i] = i
	}
	st.folds = append([]int(nil), st.exact...)
	return st
}

// WriteString reads the next bytes of the answer and returns how many
// of p were read: all of them while it is Alive, else up to and
// including the byte that doomed it, and why. The caller writes no more
// once it is doomed.
func (st *Stream) WriteString(p string) (int, Doom) {
	start := st.buf.Len()
	if st.buf.Cap() == 0 {
		st.buf.Grow(min(max(2048, 2*len(p)), st.limit+1)) // as an Incremental starts
	}
	st.buf.WriteString(p[:min(len(p), st.limit+1-start)])
	s := st.buf.String()
	for i := start; i < len(s); i++ {
		if i == st.limit {
			return i + 1 - start, TooLong
		}
		if st.json {
			continue
		}
		if !st.step(s, i) {
			return i + 1 - start, NoLabel
		}
	}
	return len(p), Alive
}

// Text is the bytes read, up to one past the limit.
func (st *Stream) Text() string { return st.buf.String() }

// step reads byte i of s and reports whether a completion of s[:i+1]
// may still pass.
func (st *Stream) step(s string, i int) bool {
	b := s[i]
	if !st.started {
		if !jsonvalue.IsSpace(b) {
			st.started = true
			if b == '"' || b == '[' || b == '{' {
				st.json = true
				return true
			}
		}
	}
	// A label, exactly: the answer's bytes begin it.
	n := 0
	for _, l := range st.exact {
		if name := st.set.Names[l]; i < len(name) && name[i] == b {
			st.exact[n] = l
			n++
		}
	}
	st.exact = st.exact[:n]
	alive := n > 0
	// A JSON number or literal, after JSON whitespace.
	if st.started && st.scalar.step(b) {
		alive = true
	}
	if !st.started {
		return true // only JSON whitespace so far: a JSON form may follow
	}
	if st.fold && st.foldStep(s, i) {
		alive = true
	}
	return alive
}

// foldStep decodes the runes byte i of s completes and reports whether a
// near-miss may still come: the runes after leading whitespace, up to
// the last that is not whitespace (whitespace after it may be trailing),
// begin some label, or the label and a full stop, in any case.
func (st *Stream) foldStep(s string, i int) bool {
	for st.runes <= i && utf8.FullRuneInString(s[st.runes:i+1]) {
		r, size := utf8.DecodeRuneInString(s[st.runes:])
		st.runes += size
		if unicode.IsSpace(r) {
			if len(st.core) > 0 {
				st.pending = append(st.pending, r)
			}
			continue
		}
		st.core = append(append(st.core, st.pending...), r)
		st.pending = st.pending[:0]
		n := 0
		for _, l := range st.folds {
			if foldPrefix(st.core, st.set.Names[l]+".") {
				st.folds[n] = l
				n++
			}
		}
		if st.folds = st.folds[:n]; n == 0 {
			st.fold = false
			break
		}
	}
	return st.fold
}

// foldPrefix reports whether core, rune by rune, is name's beginning in
// any case.
func foldPrefix(core []rune, name string) bool {
	i := 0
	for _, r := range name {
		if i == len(core) {
			return true
		}
		if foldRune(core[i]) != foldRune(r) {
			return false
		}
		i++
	}
	return i == len(core)
}
