package events

import (
	"encoding/json"
)

// Method is the JSON-RPC method a notification folds to, such as
// "turn/retryScheduled"; the wire carries it as a plain string.
type Method string

// Notification is one JSON-RPC 2.0 notification frame, as sent to clients:
//
//	{"jsonrpc":"2.0","method":"turn/retryScheduled","params":{…}}
//
// Notifications handed out by a Stream share memory with it: treat Params
// as read-only.
type Notification struct {
	JSONRPC string          `json:"jsonrpc"` // always "2.0"
	Method  Method          `json:"method"`
	Params  json.RawMessage `json:"params"`
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
	// The event's params come first, in braces: they are part of the
	// fingerprint that the cursor carries.
	pw := jw{b: make([]byte, 0, 256)}
	pw.open("")
	rec.Event.wire(&pw)
	pw.close()
	c := cursor(rec.Stream, rec.Sequence, fingerprint(rec.ID, k.name, pw.b))
	w := jw{b: make([]byte, 0, 160+len(pw.b)+4*len(rec.Stream)+2*len(rec.ID))}
	w.open("")
	w.str("jsonrpc", "2.0")
	w.str("method", string(k.method))
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
	if len(pw.b) > 2 {
		w.b = append(w.b, ',')
		w.b = append(w.b, pw.b[1:len(pw.b)-1]...)
	}
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
