package events

import "time"

// MethodSchemaExhausted is the method [SchemaExhausted] folds to.
const MethodSchemaExhausted = "output/schemaExhausted"

// SchemaExhausted is the ledger event output_schema_exhausted: a final
// answer broke the output contract and the answer stands (no retries left,
// or BrokenBy names the middleware whose rewrite broke a passing answer).
// Record kind output_schema_exhausted; folds to output/schemaExhausted.
// Describe reads "output rejected (json-parse) · no retries left" or
// "output rejected (schema-validate) · broken by <middleware>".
type SchemaExhausted struct {
	TurnID    string `json:"turnId"`
	Attempt   int    `json:"attempt"`   // >= 1
	Iteration int    `json:"iteration"` // >= 1
	Stage     string `json:"stage"`
	Error     string `json:"error"`
	Path      string `json:"path,omitempty"`
	BrokenBy  string `json:"brokenBy,omitempty"`
}

var kindSchemaExhausted = register("output_schema_exhausted", MethodSchemaExhausted, false, decodePlain[SchemaExhausted])

func (SchemaExhausted) info() *kind    { return kindSchemaExhausted }
func (e SchemaExhausted) turn() string { return e.TurnID }

func (e SchemaExhausted) check() (Event, error) {
	if err := checkLedger("output_schema_exhausted", e.TurnID, e.Attempt, e.Iteration, e.Stage, e.Error); err != nil {
		return nil, err
	}
	e.Error, e.Path, e.BrokenBy = text(e.Error), text(e.Path), text(e.BrokenBy)
	return e, checkIDs("output_schema_exhausted", e.TurnID)
}

func (e SchemaExhausted) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("attempt", int64(e.Attempt))
	w.int("iteration", int64(e.Iteration))
	w.str("stage", e.Stage)
	w.str("error", e.Error)
	w.strOpt("path", e.Path)
	w.strOpt("brokenBy", e.BrokenBy)
}

func (e SchemaExhausted) describe(time.Duration) string {
	if e.BrokenBy != "" {
		return "output rejected (" + stageWords(e.Stage) + ") · broken by " + e.BrokenBy
	}
	return "output rejected (" + stageWords(e.Stage) + ") · no retries left"
}
