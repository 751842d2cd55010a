package events

import (
	"encoding/json"
	"strconv"
)

// jw appends a JSON object member by member. Strings are escaped exactly
// as encoding/json escapes them, so frames are the same bytes whichever
// path wrote them; the hand-written path is just faster.
type jw struct {
	b     []byte
	first bool
}

func (w *jw) key(k string) {
	if w.first {
		w.first = false
	} else {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

func (w *jw) strOpt(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *jw) strsOpt(k string, v []string) {
	if len(v) == 0 {
		return
	}
	w.key(k)
	w.b = append(w.b, '[')
	for i, s := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = appendJSONString(w.b, s)
	}
	w.b = append(w.b, ']')
}

func (w *jw) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *jw) intOpt(k string, v int64) {
	if v != 0 {
		w.int(k, v)
	}
}

func (w *jw) bool(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jw) open(k string) {
	if k != "" {
		w.key(k)
	}
	w.b = append(w.b, '{')
	w.first = true
}

func (w *jw) close() {
	w.b = append(w.b, '}')
	w.first = false
}

// appendJSONString appends s as a JSON string: bytes that encoding/json
// would escape (or invalid UTF-8) send s through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
