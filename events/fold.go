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
	n := strconv.FormatInt(seq, 10)
	if len(n) < cursorDigits {
		n = strings.Repeat("0", cursorDigits-len(n)) + n
	}
	return "v:" + sid + ":" + n
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
	if err != nil || seq < 0 || rest[0] == '+' || rest[0] == '-' {
		return 0, bad("has no valid position")
	}
	return seq, nil
}

type recordPosition struct {
	ID       string `json:"id"`
	Sequence int64  `json:"sequence"`
}

type envelope struct {
	SessionID   string `json:"sessionId"`
	ViewCursor  string `json:"viewCursor"`
	SourceRange struct {
		Stream struct {
			Kind string `json:"kind"`
			ID   string `json:"id"`
		} `json:"stream"`
		First recordPosition `json:"first"`
		Last  recordPosition `json:"last"`
	} `json:"sourceRange"`
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

// Fold turns one record into its notification frame. The params carry the
// event's members plus sessionId (the record's stream), viewCursor, and a
// sourceRange citing the record (stream kind "session", first == last).
// Fold is pure: folding the same record again gives byte-identical frames.
//
// Methods: turn/started, turn/completed, turn/unqueued,
// turn/retryScheduled, turn/modelRetryScheduled, and for the output
// contract's ledger output/schemaRetry and output/schemaExhausted.
func Fold(rec Record) (Notification, error) {
	e, err := fold(rec)
	return e.n, err
}

func fold(rec Record) (entry, error) {
	switch {
	case rec.Stream == "" || rec.ID == "":
		return entry{}, &Error{Op: "fold", Seq: rec.Sequence, Detail: "record has no stream or id", Err: ErrInvalid}
	case rec.Sequence < 1:
		return entry{}, &Error{Op: "fold", Detail: "record sequence < 1", Err: ErrInvalid}
	}
	ev, err := checkEvent(rec.Event)
	if err != nil {
		return entry{}, err
	}
	k := ev.info()
	data, err := k.encode(ev)
	if err != nil {
		return entry{}, &Error{Op: "fold", Seq: rec.Sequence, Err: err}
	}
	var env envelope
	env.SessionID = rec.Stream
	env.ViewCursor = cursor(rec.Stream, rec.Sequence)
	env.SourceRange.Stream.Kind = "session"
	env.SourceRange.Stream.ID = rec.Stream
	env.SourceRange.First = recordPosition{rec.ID, rec.Sequence}
	env.SourceRange.Last = env.SourceRange.First
	head, err := json.Marshal(env)
	if err != nil {
		return entry{}, &Error{Op: "fold", Seq: rec.Sequence, Err: err}
	}
	frame := make([]byte, 0, len(head)+len(data)+len(k.method)+40)
	frame = append(frame, `{"jsonrpc":"2.0","method":"`...)
	frame = append(frame, k.method...)
	frame = append(frame, `","params":`...)
	start := len(frame)
	frame = append(frame, head[:len(head)-1]...)
	if len(data) > 2 { // data is a non-empty object: splice its members in
		frame = append(frame, ',')
		frame = append(frame, data[1:]...)
	} else {
		frame = append(frame, '}')
	}
	end := len(frame)
	frame = append(frame, '}')
	return entry{
		seq:      rec.Sequence,
		turn:     ev.turn(),
		terminal: k.terminal,
		cursor:   env.ViewCursor,
		frame:    frame,
		n:        Notification{JSONRPC: "2.0", Method: k.method, Params: frame[start:end:end]},
	}, nil
}
