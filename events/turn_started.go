package events

import "time"

// MethodTurnStarted is the method [TurnStarted] folds to.
const MethodTurnStarted Method = "turn/started"

// TurnStarted records that a turn began running. Record kind turn_started;
// folds to turn/started ("turn started").
type TurnStarted struct {
	TurnID    string `json:"turnId"`
	CommandID string `json:"commandId"` // defaults to TurnID (a fresh submit)
}

var kindTurnStarted = register("turn_started", MethodTurnStarted, false, decodePlain[TurnStarted])

func (TurnStarted) info() *kind    { return kindTurnStarted }
func (e TurnStarted) turn() string { return e.TurnID }

func (e TurnStarted) check() (Event, error) {
	if err := checkIDs("turn_started", e.TurnID, e.CommandID); err != nil {
		return nil, err
	}
	if e.CommandID == "" {
		e.CommandID = e.TurnID
	}
	return e, nil
}

func (e TurnStarted) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.str("commandId", e.CommandID)
}

func (TurnStarted) describe(time.Duration) string { return "turn started" }
