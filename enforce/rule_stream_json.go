package enforce

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// A JSON answer's strings are held to the built-in rules as it streams
// ([Schema.StreamValidating]): each string value, decoded, is asked of
// the prefix-sound rules while it is open, and of every built-in rule
// once it closes, for nothing after a closed string changes it. The
// answer is cut at the byte that makes an issue sure: the issue the
// rule's check finds in any answer the cut one begins that keeps the
// schema.

// stringWatch follows the strings of a JSON text as its bytes arrive,
// read ahead of the scanner that judges them: a finding counts only
// once the scanner has read every byte up to it (a text the scanner
// refused before that point fails there instead).
type stringWatch struct {
	rules []Validator
	off   int // bytes read
	// stack holds the open containers, and at their pointer.
	stack []watchFrame
	// In a string: key says it is a member's name; esc counts the bytes
	// of an escape read (0: none; \uXXXX takes 6), hex its digits; bad
	// says it holds what rules never judge (a lone surrogate).
	in, key, bad bool
	esc          int
	hex          []byte
	// decoded is the string so far, grown in place so that each judge's
	// view of it costs no copy; escapes are where each escape's decoded
	// bytes end in it and its raw bytes end in the stream (elsewhere a
	// raw byte is a decoded one).
	decoded strings.Builder
	escapes []escapeEnd
	judged  int // bytes of decoded asked of the prefix judges
	// judges are the string's prefix judges, one a rule (nil for a rule
	// that is not prefix-sound or does not judge the string).
	judges []prefixJudge
	start  int // the offset in the stream of the string's first byte
	ptr    string
}

// escapeEnd says an escape gave the decoded bytes [from, to), and its
// raw bytes end at raw in the stream.
type escapeEnd struct{ from, to, raw int }

type watchFrame struct {
	obj     bool
	wantKey bool
	key     string
	idx     int
	// unsure: the member's name held a lone surrogate, so the pointers
	// below it are left to the answer's end.
	unsure bool
}

// newStringWatch returns a watch for s's built-in rules that retry (a
// warning or a fix accepts the answer, and a tripwire judges it whole);
// nil when there is none.
func newStringWatch(s *Schema) *stringWatch {
	var rules []Validator
	for _, v := range s.validators {
		if v.str != nil && (v.policy == "" || v.policy == PolicyRetry) {
			rules = append(rules, v)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return &stringWatch{rules: rules}
}

// read follows p and returns the offset into p past the byte that makes
// an issue sure, and the verdict; -1 and nil when p holds none. shut
// says that byte closes the string.
func (w *stringWatch) read(p string) (_ int, _ *CheckError, shut bool) {
	base := w.off
	for i := 0; i < len(p); i++ {
		c := p[i]
		w.off = base + i + 1
		if !w.in {
			w.structural(c)
			continue
		}
		switch {
		case w.esc > 0:
			w.escaped(c)
		case c == '\\':
			w.esc = 1
		case c == '"':
			w.in = false
			if ce := w.closed(); ce != nil {
				return i + 1, ce, true
			}
			continue
		default:
			w.decoded.WriteByte(c)
		}
		if !w.key && !w.bad && (i+1 == len(p) || p[i+1] == '"') {
			// Asked once per write, and before a string closes: the
			// prefix judges read only what is new.
			if end, ce := w.open(); ce != nil {
				return end - base, ce, false
			}
		}
	}
	return -1, nil, false
}

// structural follows a byte outside strings.
func (w *stringWatch) structural(c byte) {
	top := len(w.stack) - 1
	switch c {
	case '{':
		w.stack = append(w.stack, watchFrame{obj: true, wantKey: true})
	case '[':
		w.stack = append(w.stack, watchFrame{})
	case '}', ']':
		if top >= 0 {
			w.stack = w.stack[:top]
		}
	case ',':
		if top >= 0 {
			if w.stack[top].obj {
				w.stack[top].wantKey = true
			} else {
				w.stack[top].idx++
			}
		}
	case ':':
		if top >= 0 {
			w.stack[top].wantKey = false
		}
	case '"':
		w.in, w.bad, w.esc, w.judged, w.start = true, false, 0, 0, w.off
		w.decoded, w.escapes = strings.Builder{}, w.escapes[:0]
		w.key = top >= 0 && w.stack[top].obj && w.stack[top].wantKey
		if !w.key {
			w.ptr = w.pointer()
			for _, f := range w.stack {
				w.bad = w.bad || f.unsure
			}
			w.judges = w.judges[:0]
			for _, v := range w.rules {
				var j prefixJudge
				if v.prefix != nil && judges(v, w.ptr) {
					j = v.prefix()
				}
				w.judges = append(w.judges, j)
			}
		}
	}
}

// escaped follows a byte of an escape.
func (w *stringWatch) escaped(c byte) {
	if w.esc == 1 {
		w.esc = 0
		var d byte
		switch c {
		case '"', '\\', '/':
			d = c
		case 'b':
			d = '\b'
		case 'f':
			d = '\f'
		case 'n':
			d = '\n'
		case 'r':
			d = '\r'
		case 't':
			d = '\t'
		case 'u':
			w.esc, w.hex = 2, w.hex[:0]
			return
		default:
			w.bad = true // not JSON: the scanner refuses it
			return
		}
		w.decoded.WriteByte(d)
		w.escapes = append(w.escapes, escapeEnd{w.decoded.Len() - 1, w.decoded.Len(), w.off})
		return
	}
	w.hex = append(w.hex, c)
	if w.esc++; w.esc < 6 {
		return
	}
	w.esc = 0
	r, err := strconv.ParseUint(string(w.hex), 16, 16)
	if err != nil || r >= 0xD800 && r < 0xE000 {
		// A surrogate pairs with the next escape or decodes as U+FFFD:
		// such a string is left to the answer's end.
		w.bad = true
		return
	}
	from := w.decoded.Len()
	w.decoded.WriteRune(rune(r))
	w.escapes = append(w.escapes, escapeEnd{from, w.decoded.Len(), w.off})
}

// pointer is the JSON Pointer of the value about to be read.
func (w *stringWatch) pointer() string {
	var b strings.Builder
	for _, f := range w.stack {
		b.WriteByte('/')
		if f.obj {
			b.WriteString(jsonvalue.EscapePointer(f.key))
		} else {
			b.WriteString(strconv.Itoa(f.idx))
		}
	}
	return b.String()
}

// judges reports whether v judges the string at ptr.
func judges(v Validator, ptr string) bool {
	return !v.pointed || v.at == "" || ptr == v.at || strings.HasPrefix(ptr, v.at+"/")
}

// open asks the prefix-sound rules of the open string, and returns the
// offset of the stream past the byte that makes an issue sure.
func (w *stringWatch) open() (int, *CheckError) {
	text := w.decoded.String()
	best, msg, name := -1, "", ""
	for i, v := range w.rules {
		if w.judges[i] == nil {
			continue
		}
		if end, m := w.judges[i](text, w.judged); end >= 0 && (best < 0 || end < best) {
			best, msg, name = end, m, v.name
		}
	}
	w.judged = len(text)
	if best <= 0 {
		return -1, nil
	}
	return w.rawAt(best), w.verdict(name, msg)
}

// rawAt is the offset in the stream past the source of the string's
// first end bytes: past the escape when they end inside what it gave.
func (w *stringWatch) rawAt(end int) int {
	k := sort.Search(len(w.escapes), func(i int) bool { return w.escapes[i].to > end })
	if k < len(w.escapes) && w.escapes[k].from < end {
		return w.escapes[k].raw
	}
	if k == 0 {
		return w.start + end
	}
	e := w.escapes[k-1]
	return e.raw + end - e.to
}

// closed asks the rules of a value string that just closed; a member's
// name is kept for the pointers.
func (w *stringWatch) closed() *CheckError {
	text := w.decoded.String()
	if w.key {
		if top := len(w.stack) - 1; top >= 0 {
			w.stack[top].key, w.stack[top].unsure = text, w.bad
		}
		return nil
	}
	if w.bad || !utf8.ValidString(text) {
		return nil // not JSON, or left to the end
	}
	for _, v := range w.rules {
		if !judges(v, w.ptr) {
			continue
		}
		if found := v.str(text); len(found) > 0 {
			return w.verdict(v.name, found[0])
		}
	}
	return nil
}

// verdict is the issue rule's check gives, at the string's pointer.
func (w *stringWatch) verdict(rule, msg string) *CheckError {
	return &CheckError{Stage: StageSchemaValidate, byValidators: true,
		Issues: []Issue{{Path: quote(w.ptr), Keyword: rule, Message: quote(msg)}}}
}
