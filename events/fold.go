package events

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Notification is one JSON-RPC 2.0 notification frame, as sent to clients:
//
//	{"jsonrpc":"2.0","method":"turn/retryScheduled","params":{…}}
//
// Notifications handed out by a Stream share memory with it: treat Params
// as read-only.
type Notification struct {
	JSONRPC string          `json:"jsonrpc"` // always "2.0"
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

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
// seq of session sid: "v:<sid>:<seq, zero-padded>". One record folds to one
// notification, so the sequence number is a strictly increasing position.
func cursor(sid string, seq int64) string {
	var num [20]byte
	n := strconv.AppendInt(num[:0], seq, 10)
	b := make([]byte, 0, 3+len(sid)+max(len(n), cursorDigits))
	b = append(b, "v:"...)
	b = append(b, sid...)
	b = append(b, ':')
	for i := len(n); i < cursorDigits; i++ {
		b = append(b, '0')
	}
	return string(append(b, n...))
}

// parseCursor returns the sequence number a cursor of session sid names;
// "" names the start of the stream (0).
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
	seq, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || seq < 0 || rest[0] == '+' || rest[0] == '-' || c != cursor(sid, seq) {
		return 0, bad("has no valid position") // only cursors the stream issued
	}
	return seq, nil
}

// entry is a folded record as a Stream keeps it.
type entry struct {
	seq      int64
	turn     string
	terminal bool
	cursor   string
	frame    []byte // the whole JSON-RPC frame
	n        Notification
}

// Notification folds the record into its notification frame. The params carry the
// event's members plus sessionId (the record's stream), viewCursor, and a
// sourceRange citing the record (stream kind "session", first == last).
// Folding is pure: the same record always gives byte-identical frames.
//
// Each event type names the method it folds to.
func (r Record) Notification() (Notification, error) {
	e, err := fold(r)
	return e.n, err
}

func fold(rec Record) (entry, error) {
	ev, err := checkEvent(rec.Event)
	if err != nil {
		return entry{}, err
	}
	rec.Event = ev
	return foldChecked(rec)
}

// foldChecked folds a record whose event has passed check.
func foldChecked(rec Record) (entry, error) {
	switch {
	case rec.Stream == "" || rec.ID == "":
		return entry{}, &Error{Op: "fold", Seq: rec.Sequence, Detail: "record has no stream or id", Err: ErrInvalid}
	case rec.Sequence < 1:
		return entry{}, &Error{Op: "fold", Detail: "record sequence < 1", Err: ErrInvalid}
	}
	k := rec.Event.info()
	c := cursor(rec.Stream, rec.Sequence)
	w := jw{b: make([]byte, 0, 384+4*len(rec.Stream)+2*len(rec.ID))}
	w.open("")
	w.str("jsonrpc", "2.0")
	w.str("method", k.method)
	start := len(w.b) + len(`,"params":`)
	w.open("params")
	w.str("sessionId", rec.Stream)
	w.str("viewCursor", c)
	w.open("sourceRange")
	w.open("stream")
	w.str("kind", "session")
	w.str("id", rec.Stream)
	w.close()
	for _, end := range []string{"first", "last"} {
		w.open(end)
		w.str("id", rec.ID)
		w.int("sequence", rec.Sequence)
		w.close()
	}
	w.close()
	rec.Event.wire(&w)
	w.close()
	end := len(w.b)
	w.close()
	return entry{
		seq:      rec.Sequence,
		turn:     rec.Event.turn(),
		terminal: k.terminal,
		cursor:   c,
		frame:    w.b,
		n:        Notification{JSONRPC: "2.0", Method: k.method, Params: w.b[start:end:end]},
	}, nil
}
