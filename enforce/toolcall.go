package enforce

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
	"github.com/enforcer-go/enforcer/enforce/internal/repair"
	"github.com/enforcer-go/enforcer/fnv"
)

// Call is one tool call to judge: its arguments against the tool's
// parameters schema ([CallLedger.Judge]).
type Call struct {
	// Tool and ID name the tool called and the call; the row carries them.
	Tool, ID string
	// Arguments are the arguments as the model wrote them. Empty means
	// no arguments, judged as the empty object {}.
	Arguments string
	// Iteration is the loop iteration of the reply that made the call.
	Iteration int
	// Provider and Model name the model that wrote the call.
	Provider, Model string
	// FromText says the call was read back from the reply's text
	// ([ReadTextCalls]): its row names [RepairToolText].
	FromText bool
	// Cost is what the model call that wrote the reply spent. The
	// reply's first failed call (the first of its Iteration) carries it
	// on its row, so that [FailedCost] of the rows counts each reply once.
	Cost Cost
	// FailedAnswers is what the run's failed answers cost so far
	// ([FailedCost] of a [Ledger]'s rows), for [CallLedger.Budget].
	FailedAnswers Cost
	// Cut, when not nil, says the caller stopped reading the arguments at
	// an [Incremental]'s early verdict (Cut.Verdict), as [Answer.Cut] does
	// an answer's: Arguments are those read, and the verdict is recorded
	// as it stands, not judged again. The row and tool message say so.
	Cut *Cut
}

// CallVerdict is what a [CallLedger] decided about one call.
type CallVerdict struct {
	// Row is the call's row: passed, retried (Message answers the call and
	// the model may call again) or exhausted (the caller ends its run).
	Row Attempt
	// Arguments are what to give the tool when the call passed: as the
	// model wrote them, byte for byte, or as the repairs mended them
	// (Row.Repaired). "{}" for a call written without arguments.
	Arguments string
	// Message is the tool message that answers a failed call: our words,
	// then the issues as data. On a retried row, Row.CorrectiveMessageHash
	// is its fnv.Hex32a. "" when the call passed.
	Message string
	// Err is the failure, every issue in it; nil when the call passed.
	Err *CheckError
}

// CallLedger judges one run's tool calls, each against its tool's
// parameters schema, and records one row per call, in order. Use one per
// run; it is not safe for concurrent use.
type CallLedger struct {
	limit, repeats int
	rows           []Attempt
	// first holds the first row, so that a run's one call costs no
	// allocation beyond the ledger's.
	first [1]Attempt
	tools map[string]*callStreak
	// budget is the failed-cost budget (zero: none); charged is the
	// iteration whose reply's cost a failed row carries, and anyCharged
	// says one does.
	budget     Cost
	charged    int
	anyCharged bool
}

// Budget holds the run's failed calls, with their [Call.FailedAnswers],
// to b ([WithFailedCostBudget]'s limits): the failed call that takes
// their cost past a non-zero member of b is exhausted with
// [ReasonBudget]. A negative member is an error.
func (l *CallLedger) Budget(b Cost) error {
	if b.negative() {
		return fmt.Errorf("enforce: CallLedger.Budget(%+v): a limit is negative", b)
	}
	l.budget = b
	return nil
}

// callStreak is one tool's failed calls in a row: how many, the
// signature of the last, and how many in a row had it.
type callStreak struct {
	failures int
	last     string
	same     int
}

// NewCallLedger returns a ledger for one run's tool calls. limit is how
// many failed calls of one tool in a row end the run (0: no limit; else
// 1..MaxRetries+1); repeats is [WithRepeatLimit]'s n, for calls of one
// tool failing with the same issues in a row (0: off; else 2..MaxRetries+1).
func NewCallLedger(limit, repeats int) (*CallLedger, error) {
	// Per tool, and in a row: the error that ends the run names one tool
	// and its last issues, which means something only when that tool's
	// calls are what failed; a pass resets the count, so a model that
	// learned the fix is not charged for its earlier calls. The run's
	// iteration bound holds the rest.
	if limit != 0 && (limit < 1 || limit > MaxRetries+1) {
		return nil, fmt.Errorf("enforce: NewCallLedger: limit %d: want 0 (none) or 1..%d", limit, MaxRetries+1)
	}
	if repeats != 0 && (repeats < 2 || repeats > MaxRetries+1) {
		return nil, fmt.Errorf("enforce: NewCallLedger: repeats %d: want 0 (off) or 2..%d", repeats, MaxRetries+1)
	}
	l := &CallLedger{limit: limit, repeats: repeats}
	l.rows = l.first[:0]
	return l, nil
}

// Calls returns the rows recorded so far, in order; nil when there are
// none. The ledger never changes a row it has returned, and rows recorded
// later are not in the slice, so the caller may keep it.
func (l *CallLedger) Calls() []Attempt {
	if len(l.rows) == 0 {
		return nil
	}
	return l.rows[:len(l.rows):len(l.rows)]
}

// Judge judges c's arguments against s, a tool's parameters schema, with
// s's repairs ([Schema.WithRepairs]), and records the call's row (Kind
// [KindToolCall]). A call that passes as written is given to the tool
// byte for byte. A failed call is retried, or exhausted when it is the
// ledger's limit-th failed call of its tool in a row, or the repeat
// limit's n-th in a row failing with the same issues ([ReasonRepeated]).
func (l *CallLedger) Judge(s *Schema, c Call) CallVerdict {
	row := Attempt{Attempt: len(l.rows) + 1, Iteration: c.Iteration, Kind: KindToolCall, Tool: c.Tool, CallID: c.ID, Provider: c.Provider, Model: c.Model}
	var args string
	var repaired Repairs
	var ce *CheckError
	if c.Cut != nil {
		// Judged again, the arguments read would fail at their end (most
		// often at json-parse), not where no completion could pass.
		ce, repaired = c.Cut.Verdict, c.Cut.Verdict.Repaired
		row.Cut = &Cut{Bytes: c.Cut.Bytes, OutputTokens: c.Cut.OutputTokens}
	} else {
		args, repaired, ce = s.judgeCall(c.Arguments)
	}
	if c.FromText {
		repaired |= RepairToolText
		if ce != nil {
			ce.Repaired |= RepairToolText // the corrective message says so too
		}
	}
	t := l.tools[c.Tool]
	if ce == nil {
		if t != nil {
			*t = callStreak{}
		}
		row.Outcome, row.Repaired = OutcomePassed, repaired
		l.rows = append(l.rows, row)
		return CallVerdict{Row: row, Arguments: args}
	}
	if t == nil {
		if l.tools == nil {
			l.tools = map[string]*callStreak{}
		}
		t = &callStreak{}
		l.tools[c.Tool] = t
	}
	sig := ce.signature(false)
	if t.failures++; sig == t.last {
		t.same++
	} else {
		t.last, t.same = sig, 1
	}
	row.Stage, row.Error, row.Path, row.Repaired = ce.Stage, ce.Issues[0].Message, ce.Path(), ce.Repaired
	if !l.anyCharged || l.charged != c.Iteration {
		row.Cost, l.charged, l.anyCharged = c.Cost, c.Iteration, true
	}
	msg := ce.callMessage(c.Tool, t.failures, l.limit, row.Cut)
	switch {
	case l.limit > 0 && t.failures >= l.limit:
		row.Outcome = OutcomeExhausted
	case l.repeats > 0 && t.same >= l.repeats:
		row.Outcome, row.Reason = OutcomeExhausted, ReasonRepeated
	case l.budget != (Cost{}) && l.budget.passedBy(FailedCost(append(l.Calls(), row, Attempt{Outcome: OutcomeRetried, Cost: c.FailedAnswers}))):
		row.Outcome, row.Reason = OutcomeExhausted, ReasonBudget
	default:
		row.Outcome, row.CorrectiveMessageHash = OutcomeRetried, fnv.Hex32a(msg)
	}
	l.rows = append(l.rows, row)
	return CallVerdict{Row: row, Message: msg, Err: ce}
}

// judgeCall judges a tool call's arguments: what to give the tool, the
// repairs that made it, and the failure (nil when they pass).
func (s *Schema) judgeCall(args string) (string, Repairs, *CheckError) {
	if args == "" {
		args = "{}" // a call without arguments, as several providers send one
	}
	err := s.checkStrict(args)
	if err == nil {
		return args, 0, nil // as written: never touched
	}
	ce := err.(*CheckError)
	if s.repairs&RepairCoerce != 0 {
		if obj, ok := stringifiedObject(args, ce); ok {
			err := s.checkStrict(obj)
			if err == nil {
				return obj, RepairCoerce, nil
			}
			if obj != "{}" { // a string of nothing was no arguments only where {} passes
				ce = err.(*CheckError)
				ce.Repaired = RepairCoerce
				return "", 0, ce
			}
		}
	}
	if s.repairs == 0 {
		return "", 0, ce
	}
	text, set, err := s.checkForm(args)
	if err != nil {
		return "", 0, err.(*CheckError)
	}
	return text, set, nil
}

// stringifiedObject reads arguments double-encoded: one JSON string,
// where the parameters' root admits none (ce, their failure as written,
// has a "type" issue at the root), whose content is exactly one JSON
// object, or nothing but whitespace (no arguments: {}). ok is false for
// any other text: there is no other reading of such a string, and any
// other string is left for the model to fix.
func stringifiedObject(args string, ce *CheckError) (string, bool) {
	if ce.Stage != StageSchemaValidate || !rootType(ce) {
		return "", false
	}
	var content string
	if !utf8.ValidString(args) || json.Unmarshal([]byte(args), &content) != nil {
		return "", false // invalid UTF-8 would decode as U+FFFD: not what was written
	}
	switch trimmed := strings.Trim(content, " \t\r\n"); { // JSON's whitespace only: "\f" is not nothing
	case trimmed == "":
		return "{}", true
	case trimmed[0] == '{' && json.Valid([]byte(trimmed)):
		return content, true
	}
	return "", false
}

// rootType reports whether ce has a "type" issue at the root.
func rootType(ce *CheckError) bool {
	for _, is := range ce.Issues {
		if is.Path == "" && is.Keyword == "type" {
			return true
		}
	}
	return false
}

// callMessage is the tool message answering a call whose arguments failed
// with e: failures is its place among its tool's failed calls in a row,
// limit the ledger's; cut, when not nil, where they were stopped.
func (e *CheckError) callMessage(tool string, failures, limit int, cut *Cut) string {
	c := corrective.Call{Tool: tool, Failures: failures, Limit: limit, Stage: corrective.Validate,
		Repaired: repair.Set(e.Repaired).Words(), Issues: make([]corrective.Issue, len(e.Issues))}
	if e.Stage == StageJSONParse {
		c.Stage = corrective.Parse
	}
	if cut != nil {
		c.Stopped = cut.Bytes
	}
	for i, is := range e.Issues {
		c.Issues[i] = corrective.Issue{Path: is.Path, Message: is.Message}
	}
	return c.String()
}
