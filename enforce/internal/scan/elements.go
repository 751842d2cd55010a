package scan

// Elements: a Scanner watching an array delivers its elements as they
// close, from the bytes it steps anyway (enforce.Elements).

// A Watch is the array whose elements a Scanner delivers as they close
// ([Scanner.Watch]), and what it delivered; the caller owns it.
type Watch struct {
	// Tokens are the array's pointer, its reference tokens unescaped;
	// Sink gets each element.
	Tokens []string
	Sink   Sink

	idx    []int // each token as an array index, -1 where it is none
	idxBuf [4]int
	// next: elements delivered; stop: one closed without passing, so no
	// later one is delivered early; items: elements the array began;
	// whole: the array ended.
	next, items int
	stop, whole bool
	// pend: a number element, delivered once the byte after it (which
	// ends it) is judged: its index and text's bounds.
	pend          bool
	pi, pfrom, pt int
}

// A Sink gets the elements a [Watch] delivers: index is the element's
// in its array, text its bytes as written.
type Sink interface {
	Element(index int, text string)
}

// Watch makes st deliver to w.Sink, inside a write, each element of the
// array at w.Tokens, in order, each once: at the element's last byte (a
// number's: the byte after it), before any later byte is judged, once
// it passed the subschema its path gives it by the fast path (see
// passedIn) and no verdict was given. Once one closes without passing
// so, none after it is delivered. Call it after Init, before any write.
func (st *Scanner) Watch(w *Watch) {
	w.idx = w.idxBuf[:0]
	for _, t := range w.Tokens {
		w.idx = append(w.idx, arrayIndex(t))
	}
	st.watch = w
}

// arrayIndex is t as an array index (RFC 6901: "0", or digits without
// a leading zero), -1 where it is none.
func arrayIndex(t string) int {
	if t == "" || len(t) > 1 && t[0] == '0' || len(t) > 18 {
		return -1
	}
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return -1
		}
		n = n*10 + int(t[i]-'0')
	}
	return n
}

// Watched is what the watch delivered: the elements delivered, those the
// array began, and whether the array ended.
func (st *Scanner) Watched() (delivered, items int, whole bool) {
	if st.watch == nil {
		return 0, 0, false
	}
	return st.watch.next, st.watch.items, st.watch.whole
}

// onPath reports whether the container beginning now, at stack index
// len(st.stack), is at a prefix of the watched pointer.
func (st *Scanner) onPath() bool {
	d := len(st.stack)
	if d == 0 {
		return true
	}
	f, w := &st.stack[d-1], st.watch
	if !f.on || d-1 >= len(w.Tokens) {
		return false
	}
	if f.obj {
		return f.key == w.Tokens[d-1]
	}
	return f.n-1 == w.idx[d-1]
}

// inArray reports whether the innermost container is the watched array.
func (st *Scanner) inArray() bool {
	d := len(st.stack)
	return d == len(st.watch.Tokens)+1 && st.stack[d-1].on && !st.stack[d-1].obj
}

// popping notes that the container f ends: the watched array, if it is.
func (st *Scanner) popping(f *frame) {
	if f.on && !f.obj && len(st.stack) == len(st.watch.Tokens)+1 {
		st.watch.items, st.watch.whole = f.n, true
	}
}

// element delivers the value that just ended, s[from:end], with no
// verdict given, if it is an element of the watched array; a number
// waits for the byte after it (elementAfter).
func (st *Scanner) element(from, end int, number bool) {
	if !st.inArray() {
		return
	}
	w := st.watch
	i := st.stack[len(st.stack)-1].n - 1
	if number {
		w.pend, w.pi, w.pfrom, w.pt = true, i, from, end
		return
	}
	st.deliver(i, from, end)
}

// elementAfter delivers the number element waiting for the byte after
// it, which was judged with no verdict.
func (st *Scanner) elementAfter() {
	w := st.watch
	w.pend = false
	st.deliver(w.pi, w.pfrom, w.pt)
}

func (st *Scanner) deliver(i, from, end int) {
	w := st.watch
	if w.stop || i != w.next {
		return
	}
	if !st.passedIn(len(w.Tokens)) {
		w.stop = true
		return
	}
	w.next++
	w.Sink.Element(i, st.buf.String()[from:end])
}

// passedIn reports whether every value that ended in the array at stack
// index d passed the subschema its path gives it, by the fast path (see
// passesHere), with no verdict given; where that array just ended (d is
// the depth), whether it passed, with the values before it in its
// container. False where the Scanner does not check values as they end.
func (st *Scanner) passedIn(d int) bool {
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
