package events

import "fmt"

// Event decodes the notification's params into the event value it was
// folded from ([TurnStarted], [TurnRetry], …), every field intact
// (durations from their *Ms members; the envelope aside: see
// [Notification.Cursor]), without checking the producer contract. An
// unknown method fails with [ErrUnknownMethod], params that do not
// decode with the decoder's error, each in an [*Error] with Op "decode".
func (n Notification) Event() (Event, error) {
	k := methods[n.Method]
	if k == nil {
		return nil, &Error{Op: "decode", Detail: fmt.Sprintf("method %.80q", n.Method), Err: ErrUnknownMethod}
	}
	ev, err := k.decode(n.Params)
	if err != nil {
		return nil, &Error{Op: "decode", Detail: string(n.Method), Err: err}
	}
	return ev, nil
}

// IsTerminal reports whether n ends its turn: turn/completed and
// turn/unqueued do, and they are the notifications that resolve
// [Stream.WaitTurn]. Retry and ledger notifications never do.
func (n Notification) IsTerminal() bool {
	k := methods[n.Method]
	return k != nil && k.terminal
}

// marshalWire is the JSON form of an event: its wire params.
func marshalWire(e Event) []byte {
	w := jw{b: make([]byte, 0, 128)}
	w.open("")
	e.wire(&w)
	w.close()
	return w.b
}
