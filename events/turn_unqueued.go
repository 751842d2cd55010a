package events

import "time"

// MethodTurnUnqueued is the method [TurnUnqueued] folds to.
const MethodTurnUnqueued Method = "turn/unqueued"

// TurnUnqueued records that a queued turn was reclaimed and will never run.
// Record kind turn_unqueued; folds to turn/unqueued ("turn unqueued"),
// which resolves WaitTurn.
type TurnUnqueued struct {
	TurnID    string `json:"turnId"`
	CommandID string `json:"commandId"` // defaults to TurnID
}

var kindTurnUnqueued = register("turn_unqueued", MethodTurnUnqueued, true, decodePlain[TurnUnqueued])

func (TurnUnqueued) info() *kind    { return kindTurnUnqueued }
func (e TurnUnqueued) turn() string { return e.TurnID }

func (e TurnUnqueued) check() (Event, error) {
	if err := checkIDs("turn_unqueued", e.TurnID, e.CommandID); err != nil {
		return nil, err
	}
	if e.CommandID == "" {
		e.CommandID = e.TurnID
	}
	return e, nil
}

func (e TurnUnqueued) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.str("commandId", e.CommandID)
}

func (TurnUnqueued) describe(time.Duration) string { return "turn unqueued" }
