package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Record is one entry of a session stream's durable log. A Stream fills in
// every field except Event when it appends; a Log stores records as they are.
//
// Its JSON form, one line of a file log, is
//
//	{"seq":1,"id":"…","stream":"…","atMs":1754590940500,"kind":"turn_started","data":{…}}
//
// where kind is the event's record kind (each event type names its own)
// and data is the event's wire params without the envelope members.
type Record struct {
	Stream   string    // the session ID the record belongs to
	Sequence int64     // 1 for the first record, then +1 with no gaps
	ID       string    // unique record ID (UUIDv7 layout; see Stream.Append)
	Time     time.Time // when it was appended, to the millisecond
	Event    Event
}

// Event is the payload of a record: one of this package's event types
// ([TurnStarted], [TurnCompleted], [TurnRetry], …). The set is closed.
//
// Each event type lives in one file with everything about it: its
// producer contract (check), its wire params (wire), how its record and
// notification decode (register), and its line for people (describe).
type Event interface {
	// check validates the producer contract and returns the event as it
	// will be stored (defaults filled in, text normalized).
	check() (Event, error)
	info() *kind
	turn() string
	wire(w *jw)                            // appends the event's params members
	describe(elapsed time.Duration) string // see Describe
}

// kind ties an event type to its record kind and wire method.
type kind struct {
	name     string // record kind in the log
	method   Method // JSON-RPC method of the folded notification
	terminal bool   // resolves a turn-wait
	decode   func([]byte) (Event, error)
}

var (
	kinds   = map[string]*kind{} // by record kind
	methods = map[Method]*kind{} // by notification method
)

// register declares an event type. fromWire decodes the event from its
// params (record data, or a notification's params, whose envelope members
// it ignores); on error it returns what it decoded so far.
func register[E Event](name string, method Method, terminal bool, fromWire func([]byte) (E, error)) *kind {
	k := &kind{
		name: name, method: method, terminal: terminal,
		decode: func(b []byte) (Event, error) { return fromWire(b) },
	}
	kinds[name], methods[method] = k, k
	return k
}

func decodePlain[E any](b []byte) (E, error) {
	var e E
	err := json.Unmarshal(b, &e)
	return e, err
}

// ms converts wire milliseconds to a Duration, saturating where a
// Duration would overflow.
func ms(n int64) time.Duration {
	const limit = math.MaxInt64 / int64(time.Millisecond)
	return time.Duration(max(-limit, min(n, limit))) * time.Millisecond
}

// checkEvent validates ev, rejecting nil.
func checkEvent(ev Event) (Event, error) {
	if ev == nil {
		return nil, invalid("nil event")
	}
	return ev.check()
}

type recordJSON struct {
	Seq    int64           `json:"seq"`
	ID     string          `json:"id"`
	Stream string          `json:"stream"`
	AtMs   int64           `json:"atMs"`
	Kind   string          `json:"kind"`
	Data   json.RawMessage `json:"data"`
}

// MarshalJSON encodes r as one line of a file log (no trailing newline).
func (r Record) MarshalJSON() ([]byte, error) {
	if r.Event == nil {
		return nil, invalid("record %d has no event", r.Sequence)
	}
	return appendRecord(nil, r), nil
}

func appendRecord(b []byte, r Record) []byte {
	w := jw{b: b}
	w.open("")
	w.int("seq", r.Sequence)
	w.str("id", r.ID)
	w.str("stream", r.Stream)
	w.int("atMs", r.Time.UnixMilli())
	w.str("kind", r.Event.info().name)
	w.open("data")
	r.Event.wire(&w)
	w.close()
	w.close()
	return w.b
}

// UnmarshalJSON decodes a record written by MarshalJSON. It checks the
// shape and the event's producer contract, so a record that decodes can
// always be folded.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	k := kinds[j.Kind]
	switch {
	case k == nil:
		return fmt.Errorf("unknown record kind %q", j.Kind)
	case j.Seq < 1:
		return fmt.Errorf("sequence %d < 1", j.Seq)
	case j.ID == "" || j.Stream == "":
		return fmt.Errorf("record %d: empty id or stream", j.Seq)
	case len(bytes.TrimSpace(j.Data)) == 0 || j.Data[0] != '{':
		return fmt.Errorf("record %d: data is not an object", j.Seq)
	}
	ev, err := k.decode(j.Data)
	if err != nil {
		return fmt.Errorf("record %d: %w", j.Seq, err)
	}
	ev, err = ev.check()
	if err != nil {
		return fmt.Errorf("record %d: %w", j.Seq, err)
	}
	*r = Record{Stream: j.Stream, Sequence: j.Seq, ID: j.ID, Time: time.UnixMilli(j.AtMs).UTC(), Event: ev}
	return nil
}
