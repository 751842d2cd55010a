package events

import (
	"strconv"
	"time"
)

// MethodSchemaRetry is the method [SchemaRetry] folds to.
const MethodSchemaRetry Method = "output/schemaRetry"

// SchemaRetry is the ledger event output_schema_retry: a final answer
// broke the output contract and a corrective turn was sent. Record kind
// output_schema_retry; folds to output/schemaRetry. Describe reads
// "output rejected (schema-validate) · asking again · 1 retry left", or
// "… · last retry" while the last one is being spent; an answer of a kind
// names it ("choice rejected …", "labels", "text", "elements"), one that
// named a union member says so ("… (schema-validate) · member refund · …").
type SchemaRetry struct {
	TurnID                string `json:"turnId"`
	Attempt               int    `json:"attempt"`          // >= 1
	RetriesRemaining      int    `json:"retriesRemaining"` // after the corrective turn being sent
	Iteration             int    `json:"iteration"`        // >= 1
	Stage                 string `json:"stage"`            // "json-parse", "schema-validate", "degenerate" or "no-answer"
	Error                 string `json:"error"`            // the validator's message, verbatim
	Path                  string `json:"path,omitempty"`
	CorrectiveMessageHash string `json:"correctiveMessageHash"` // 8 lowercase hex digits
	// InputTokens and OutputTokens (CachedTokens among the first,
	// ReasoningTokens among the second) are what the model call that gave
	// the failed answer spent, as its row says; zero is unknown and left
	// off the wire.
	InputTokens     int `json:"inputTokens,omitempty"`
	OutputTokens    int `json:"outputTokens,omitempty"`
	CachedTokens    int `json:"cachedTokens,omitempty"`
	ReasoningTokens int `json:"reasoningTokens,omitempty"`
	// Repaired names the repairs applied to the answer before it was
	// judged (enforce.Attempt.Repaired), in order; absent when none were.
	Repaired []string `json:"repaired,omitempty"`
	// Provider and Model name the model that wrote the answer, as its
	// row does (enforce.Attempt.Model); absent when unknown.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Kind is the output kind of the answer, as its row says
	// (enforce.Attempt.Kind: choice, multi-label, text, elements); absent
	// for one JSON value. Member is the union member the answer named
	// (enforce.Attempt.Member); absent when it named none, or no union.
	Kind   string `json:"kind,omitempty"`
	Member string `json:"member,omitempty"`
}

var kindSchemaRetry = register("output_schema_retry", MethodSchemaRetry, false, decodePlain[SchemaRetry])

func (SchemaRetry) info() *kind    { return kindSchemaRetry }
func (e SchemaRetry) turn() string { return e.TurnID }

func (e SchemaRetry) check() (Event, error) {
	if err := checkLedger("output_schema_retry", e.TurnID, e.Attempt, e.Iteration, e.Stage, e.Error); err != nil {
		return nil, err
	}
	if e.RetriesRemaining < 0 {
		return nil, invalid("output_schema_retry: retriesRemaining %d < 0", e.RetriesRemaining)
	}
	if err := checkRepaired("output_schema_retry", e.Repaired); err != nil {
		return nil, err
	}
	if err := checkKind("output_schema_retry", e.Kind, e.Member); err != nil {
		return nil, err
	}
	if e.InputTokens < 0 || e.OutputTokens < 0 || e.CachedTokens < 0 || e.ReasoningTokens < 0 {
		return nil, invalid("output_schema_retry: negative token count")
	}
	if !isHex8(e.CorrectiveMessageHash) {
		return nil, invalid("output_schema_retry: correctiveMessageHash %q is not 8 lowercase hex digits", e.CorrectiveMessageHash)
	}
	e.Error, e.Path, e.Provider, e.Model = text(e.Error), text(e.Path), text(e.Provider), text(e.Model)
	return e, checkIDs("output_schema_retry", e.TurnID)
}

func (e SchemaRetry) wire(w *jw) {
	w.str("turnId", e.TurnID)
	w.int("attempt", int64(e.Attempt))
	w.int("retriesRemaining", int64(e.RetriesRemaining))
	w.int("iteration", int64(e.Iteration))
	w.str("stage", e.Stage)
	w.str("error", e.Error)
	w.strOpt("path", e.Path)
	w.str("correctiveMessageHash", e.CorrectiveMessageHash)
	w.intOpt("inputTokens", int64(e.InputTokens))
	w.intOpt("outputTokens", int64(e.OutputTokens))
	w.intOpt("cachedTokens", int64(e.CachedTokens))
	w.intOpt("reasoningTokens", int64(e.ReasoningTokens))
	w.strsOpt("repaired", e.Repaired)
	w.strOpt("provider", e.Provider)
	w.strOpt("model", e.Model)
	w.strOpt("kind", e.Kind)
	w.strOpt("member", e.Member)
}

func (e SchemaRetry) describe(time.Duration) string {
	left := strconv.Itoa(e.RetriesRemaining) + " retries left"
	switch {
	case e.RetriesRemaining <= 0: // the corrective turn now sent is the last
		left = "last retry"
	case e.RetriesRemaining == 1:
		left = "1 retry left"
	}
	return rejected(e.Kind, e.Stage, e.Member) + " · asking again · " + left
}

// checkLedger is the contract shared by the two ledger events.
func checkLedger(name, turnID string, attempt, iteration int, stage, msg string) error {
	switch {
	case turnID == "":
		return invalid("%s: turnId is empty", name)
	case attempt < 1:
		return invalid("%s: attempt %d < 1", name, attempt)
	case iteration < 1:
		return invalid("%s: iteration %d < 1", name, iteration)
	case !knownStage(stage):
		return invalid("%s: stage %q is not json-parse, schema-validate, degenerate or no-answer", name, stage)
	case msg == "":
		return invalid("%s: error is empty", name)
	}
	return nil
}

// checkRepaired refuses repairs that are not names (see isName): at
// most 8 of enforce's repair names (enforce.AllRepairs), or a newer
// producer's.
func checkRepaired(name string, repaired []string) error {
	if len(repaired) > 8 {
		return invalid("%s: %d repairs, at most 8", name, len(repaired))
	}
	for _, r := range repaired {
		if !isName(r) {
			return invalid("%s: repair %q is not a name of a-z and -", name, text(r))
		}
	}
	return nil
}

// checkKind refuses an output kind that is not a name (enforce's kinds,
// enforce.Kind, or a newer producer's) and a member that is not one of
// a union's names: 1 to 64 of a-z, A-Z, 0-9, '_' and '-'.
func checkKind(name, kind, member string) error {
	if kind != "" && !isName(kind) {
		return invalid("%s: kind %q is not a name of a-z and -", name, text(kind))
	}
	if member != "" && !isMember(member) {
		return invalid("%s: member %q is not 1 to 64 of [a-zA-Z0-9_-]", name, text(member))
	}
	return nil
}

// isName reports whether s is 1 to 32 of a-z and '-'.
func isName(s string) bool {
	ok := s != "" && len(s) <= 32
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] == '-' || (s[i] >= 'a' && s[i] <= 'z')
	}
	return ok
}

// isMember reports whether s is a union member's name, as enforce.Union
// allows them.
func isMember(s string) bool {
	ok := s != "" && len(s) <= 64
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
	}
	return ok
}

// kindSubjects name what was rejected, per output kind, in the line of a
// ledger event; a JSON answer's, or a newer producer's kind, is "output".
var kindSubjects = map[string]string{"choice": "choice", "multi-label": "labels", "text": "text", "elements": "elements"}

// rejected begins the line of a ledger event: "output rejected
// (schema-validate)", its subject the kind's ("choice rejected (…)"),
// then " · member refund" when the answer named a union member (one a
// frame read back holds only when it is a member's name).
func rejected(kind, stage, member string) string {
	subject := "output"
	if w, ok := kindSubjects[kind]; ok {
		subject = w
	}
	line := subject + " rejected (" + stageWords(stage) + ")"
	if isMember(member) {
		line += " · member " + member
	}
	return line
}

// stageWords shows a stage read from a frame: a known stage verbatim,
// anything else (a hostile or newer server's) as "output contract".
func stageWords(stage string) string {
	if knownStage(stage) {
		return stage
	}
	return "output contract"
}

// knownStage reports whether stage is one of enforce's stages.
func knownStage(stage string) bool {
	switch stage {
	case "json-parse", "schema-validate", "degenerate", "no-answer":
		return true
	}
	return false
}
