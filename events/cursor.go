package events

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Cursor returns the notification's viewCursor: the value to pass to
// Stream.Subscribe (or send as Last-Event-ID) to resume after it. It is ""
// when the params carry none.
func (n Notification) Cursor() string {
	var p struct {
		ViewCursor string `json:"viewCursor"`
	}
	_ = json.Unmarshal(n.Params, &p) // a malformed frame has no cursor
	return p.ViewCursor
}

// cursorDigits zero-pads the sequence so cursors also sort as strings.
const cursorDigits = 12

// cursor is the opaque view cursor of the notification folded from record
// seq of session sid: "v:<sid>:<seq, zero-padded>:<fingerprint>". One
// record folds to one notification, so the sequence number is a strictly
// increasing position. The fingerprint (16 hex digits) names the record
// itself, so that a cursor issued by another history of the log — one
// whose record seq was lost and replaced — is recognised as such.
func cursor(sid string, seq int64, fp uint64) string {
	var num [20]byte
	n := strconv.AppendInt(num[:0], seq, 10)
	b := make([]byte, 0, 3+len(sid)+max(len(n), cursorDigits)+17)
	b = append(b, "v:"...)
	b = append(b, sid...)
	b = append(b, ':')
	for i := len(n); i < cursorDigits; i++ {
		b = append(b, '0')
	}
	b = append(b, n...)
	b = append(b, ':')
	const hexDigits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[fp>>shift&0xf])
	}
	return string(b)
}

// fingerprint identifies a record by its ID, kind and event params (the
// params as written to the frame, in braces). Record IDs carry the
// append time, so a record that replaces a lost one differs from it even
// when its event is the same.
func fingerprint(id, kind string, params []byte) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	h.Write([]byte{0})
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write(params)
	return h.Sum64()
}

// parseCursor returns the sequence number a cursor of session sid names;
// "" names the start of the stream (0). It checks the form only: whether
// the stream still holds the record is Stream.position's question.
func parseCursor(sid, c string) (int64, error) {
	if c == "" {
		return 0, nil
	}
	bad := func(why string) error {
		return &Error{Op: "subscribe", Detail: fmt.Sprintf("cursor %.80q %s", c, why), Err: ErrCursor}
	}
	rest, ok := strings.CutPrefix(c, "v:"+sid+":")
	if !ok {
		return 0, bad("is not a cursor of session " + strconv.Quote(sid))
	}
	num, fp, ok := strings.Cut(rest, ":")
	seq, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || seq < 1 || num[0] == '+' || num[0] == '-' {
		return 0, bad("has no valid position")
	}
	f, err := strconv.ParseUint(fp, 16, 64)
	if err != nil || c != cursor(sid, seq, f) {
		return 0, bad("has no valid position") // only cursors the stream issued
	}
	return seq, nil
}
