package events

import (
	"slices"
	"time"

	"github.com/enforcer-go/enforcer/internal/exhaust"
)

// MethodToolCallRejected is the method [ToolCallRejected] folds to.
const MethodToolCallRejected Method = "tool/callRejected"

// ToolCallRejected is the ledger event tool_call_rejected: a tool call's
// arguments broke the tool's parameters schema, so the tool was not run.
// Record kind tool_call_rejected; folds to tool/callRejected. Outcome
// "retried": the model was answered with the issues (its hash is
// CorrectiveMessageHash); "exhausted": the run ends, Reason "repeated"
// when the same issues came again, else the limit of failed calls. Describe
// reads "tool call lookup rejected (schema-validate) · asking again", or
// "… · run stopped" / "… · same issues again".
type ToolCallRejected struct {
	TurnID string `json:"turnId"`
	// Call is the call's row number among the run's calls (>= 1).
	Call      int    `json:"call"`
	Iteration int    `json:"iteration"` // >= 1
	Tool      string `json:"tool"`
	CallID    string `json:"callId"`
	Outcome   string `json:"outcome"` // "retried" or "exhausted"
	Stage     string `json:"stage"`   // "json-parse" or "schema-validate"
	Error     string `json:"error"`   // the validator's message, verbatim
	Path      string `json:"path,omitempty"`
	// CorrectiveMessageHash is fnv.Hex32a of the tool message that
	// answered the call; only on "retried".
	CorrectiveMessageHash string        `json:"correctiveMessageHash,omitempty"`
	Reason                ExhaustReason `json:"reason,omitempty"` // only on "exhausted"
	// Repaired names the repairs applied to the arguments before they
	// were judged, in order; absent when none were.
	Repaired []string `json:"repaired,omitempty"`
	// Provider and Model name the model that wrote the call; absent when
	// unknown.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
}

var kindToolCallRejected = register("tool_call_rejected", MethodToolCallRejected, false, decodePlain[ToolCallRejected])

func (ToolCallRejected) info() *kind    { return kindToolCallRejected }
func (e ToolCallRejected) turn() string { return e.TurnID }

func (e ToolCallRejected) check() (Event, error) {
	const name = "tool_call_rejected"
	if err := checkLedger(name, e.TurnID, e.Call, e.Iteration, e.Stage, e.Error); err != nil {
		return nil, err
	}
	switch {
	case e.Stage == "degenerate":
		return nil, invalid("%s: stage degenerate is an answer's, not a call's", name)
	case e.Tool == "" || e.CallID == "":
		return nil, invalid("%s: tool or callId is empty", name)
	case e.Outcome == "retried" && !isHex8(e.CorrectiveMessageHash):
		return nil, invalid("%s: correctiveMessageHash %q is not 8 lowercase hex digits", name, e.CorrectiveMessageHash)
	case e.CorrectiveMessageHash != "" && !isHex8(e.CorrectiveMessageHash):
		return nil, invalid("%s: correctiveMessageHash %q is not 8 lowercase hex digits", name, e.CorrectiveMessageHash)
	case e.Outcome != "retried" && e.Outcome != "exhausted":
		return nil, invalid("%s: outcome %q is not retried or exhausted", name, text(e.Outcome))
	case e.Reason != "" && !slices.Contains(exhaust.Reasons, string(e.Reason)):
		return nil, invalid("%s: reason %q is not one of %v", name, e.Reason, exhaust.Reasons)
	}
	if err := checkRepaired(name, e.Repaired); err != nil {
		return nil, err
	}
	e.Tool, e.CallID, e.Error, e.Path = text(e.Tool), text(e.CallID), text(e.Error), text(e.Path)
	e.Provider, e.Model = text(e.Provider), text(e.Model)
	return e, checkIDs(name, e.TurnID)
}

func (e ToolCallRejected) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("call", int64(e.Call))
	w.int("iteration", int64(e.Iteration))
	w.str("tool", e.Tool)
	w.str("callId", e.CallID)
	w.str("outcome", e.Outcome)
	w.str("stage", e.Stage)
	w.str("error", e.Error)
	w.strOpt("path", e.Path)
	w.strOpt("correctiveMessageHash", e.CorrectiveMessageHash)
	w.strOpt("reason", string(e.Reason))
	w.strsOpt("repaired", e.Repaired)
	w.strOpt("provider", e.Provider)
	w.strOpt("model", e.Model)
}

func (e ToolCallRejected) describe(time.Duration) string {
	why := "asking again"
	switch {
	case e.Outcome != "exhausted":
	case e.Reason == ExhaustRepeated:
		why = "same issues again"
	default:
		why = "run stopped"
	}
	return "tool call " + toolWords(e.Tool) + " rejected (" + stageWords(e.Stage) + ") · " + why
}

// toolWords shows a tool's name read from a frame: a union member's
// form of name (1 to 64 of a-z, A-Z, 0-9, _ and -) verbatim, anything
// else (a hostile or newer server's) as "(unnamed)".
func toolWords(tool string) string {
	if isMember(tool) {
		return tool
	}
	return "(unnamed)"
}
