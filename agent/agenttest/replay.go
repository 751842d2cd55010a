package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// Recording is a run read back from an [agent.Result] saved as JSON, to
// be run again against the agent and middleware as they are now.
type Recording struct {
	// Model replies as the recorded model did, reply for reply, whatever
	// it is asked. Steps a better run leaves unused are not reported; a
	// request past the last one is, as with [NewModel]. It is a *[Model],
	// or a *[StreamingModel] when a row is cut (see [Replay]).
	Model agent.Model
	// Input is the recorded run's input.
	Input string
	// Attempts are the recorded rows, the ledger [Recording.Check] holds
	// the replay to.
	Attempts []enforce.Attempt

	at string // the recording's path, for Check's report
}

// Replay reads the [agent.Result] saved as JSON at path (say, from a
// production failure, written to testdata) and returns a Model that
// replies as the recorded one did, with the run's input and rows:
//
//	rec := agenttest.Replay(t, "testdata/failed-run.json")
//	res, _ := agent.New(rec.Model, opts...).Run(ctx, rec.Input)
//	rec.Check(t, res)
//
// Each reply is the recorded assistant message, with the usage its row
// recorded, and ends as the row says: truncated at the output limit for a
// Truncated row, withheld for a Withheld one; otherwise with tool use
// when it calls tools, complete when it does not. Tools are not
// replayed: the agent under test runs its own (give it fakes).
//
// A row with Cut is an answer a streaming run stopped early
// ([agent.WithEarlyAbort]): the conversation holds it only up to the
// byte that doomed it, which judged whole fails differently (`{"city":t`
// is broken JSON, where the cut saw a wrong type). So when a row is cut
// the Model streams ([StreamingModel]), each reply whole in one chunk,
// and a cut reply with the output tokens its Cut recorded first: a run
// with early abort cuts it at the same byte, with the same verdict and
// the same Cut. A file
// that cannot be read as a Result, and a Result of more than one run of
// the turn (whose earlier conversations were not kept), fail the test at
// once.
func Replay(t testing.TB, path string) *Recording {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("agenttest: Replay: %v", err)
	}
	var res agent.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("agenttest: Replay: %s is not an agent.Result: %v", path, err)
	}
	if res.TurnAttempts > 1 {
		t.Fatalf("agenttest: Replay: %s holds %d turn attempts; only the last one's conversation was kept, so the run cannot be replayed",
			path, res.TurnAttempts)
	}
	rows := map[int]enforce.Attempt{}
	for _, r := range res.Attempts {
		rows[r.Iteration] = r
	}
	var steps []Step
	cut := false // a row is cut: the model streams
	input := res.Input
	for _, m := range res.Messages {
		switch m.Role {
		case agent.RoleUser:
			if input == "" && len(steps) == 0 {
				input = m.Content // a Result saved before Input was kept
			}
			continue
		case agent.RoleAssistant:
		default:
			continue
		}
		s := Step{msg: m, stop: agent.StopComplete}
		if len(m.ToolCalls) > 0 {
			s.stop = agent.StopToolUse
		}
		if r, ok := rows[len(steps)+1]; ok {
			s.usage = agent.Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CachedTokens: r.CachedTokens, ReasoningTokens: r.ReasoningTokens}
			switch {
			case r.Withheld != "":
				s.stop = agent.StopReason(r.Withheld)
			case r.Truncated:
				s.stop = agent.StopLength
			}
			if r.Cut != nil {
				cut = true
				s.script = []agent.Chunk{
					{Usage: agent.Usage{InputTokens: r.InputTokens, OutputTokens: r.Cut.OutputTokens}},
					{Text: m.Content},
					{Usage: s.usage, Stop: s.stop, StopRaw: string(s.stop)},
				}
			}
		}
		steps = append(steps, s)
	}
	m := &Model{t: t, steps: steps, at: path}
	rec := &Recording{Model: m, Input: input, Attempts: res.Attempts, at: path}
	if cut {
		rec.Model = &StreamingModel{Model: m}
	}
	return rec
}

// Check asserts that res, the replayed run's result, did as well as the
// recording or better:
//   - better: its ledger ends in a passed row, in no more attempts than
//     the recording took to pass (any number, if it never passed);
//   - as well: otherwise, its rows are the recording's, row for row —
//     outcome, stage, error, path, brokenBy, truncated, withheld and the
//     rest — except correctiveMessageHash and the cost members, which
//     change with the corrections' wording and the clock.
//
// Anything else fails the test with both ledgers. A recording without a
// ledger, or with an empty one (a run without agent.WithOutputRetries
// has no rows), gives Check nothing to hold the replay to, so it fails
// the test too: replay such a run with [Recording.Model] and assert on
// the result yourself.
func (r *Recording) Check(t testing.TB, res *agent.Result) {
	t.Helper()
	if len(r.Attempts) == 0 {
		t.Errorf("agenttest: %s holds no ledger (it was recorded without agent.WithOutputRetries), so Check has nothing to hold the replay to", r.at)
		return
	}
	var got []enforce.Attempt
	if res != nil {
		got = res.Attempts
	}
	if n := passedAt(got); n > 0 && (passedAt(r.Attempts) == 0 || n <= passedAt(r.Attempts)) {
		return
	}
	if reflect.DeepEqual(judged(got), judged(r.Attempts)) {
		return
	}
	t.Errorf("agenttest: the replay did worse than the recording (%s):\nreplay:\n%s\nrecording:\n%s",
		r.at, ledger(got), ledger(r.Attempts))
}

// passedAt is the number of the passed row that ends rows, or 0.
func passedAt(rows []enforce.Attempt) int {
	if n := len(rows); n > 0 && rows[n-1].Outcome == enforce.OutcomePassed {
		return rows[n-1].Attempt
	}
	return 0
}

// judged is rows without what changes between runs of the same answers.
func judged(rows []enforce.Attempt) []enforce.Attempt {
	out := make([]enforce.Attempt, len(rows))
	for i, r := range rows {
		r.CorrectiveMessageHash, r.Cost = "", enforce.Cost{}
		out[i] = r
	}
	return out
}

// ledger shows rows one per line, as JSON.
func ledger(rows []enforce.Attempt) string {
	if len(rows) == 0 {
		return "  (no rows)"
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		b, _ := json.Marshal(r)
		lines[i] = fmt.Sprintf("  %s", b)
	}
	return strings.Join(lines, "\n")
}
