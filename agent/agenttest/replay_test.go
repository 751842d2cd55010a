package agenttest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/middleware"
)

// stripFences is the fix a user makes after the recorded failure: an
// act-output step that takes the JSON out of a markdown fence.
var stripFences = middleware.Middleware{Name: "strip-fences", Output: func(_ context.Context, s string) (string, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "```json"); ok {
		s = strings.TrimSuffix(strings.TrimSpace(rest), "```")
	}
	return strings.TrimSpace(s), nil
}}

// save writes res as JSON to a file of the test's and returns its path.
func save(t *testing.T, res *agent.Result) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// record runs an agent with retries over steps and saves its result.
func record(t *testing.T, retries int, steps ...agenttest.Step) string {
	t.Helper()
	a := agent.New(agenttest.NewModel(t, steps...), agent.WithOutputRetries(retries))
	_, res, _ := agent.RunTyped[Weather](t.Context(), a, "weather?")
	return save(t, res)
}

func TestReplayOfTheFailedRunInTestdata(t *testing.T) {
	const path = "testdata/failed-run.json"
	t.Run("the same agent gives the same ledger", func(t *testing.T) {
		rec := agenttest.Replay(t, path)
		if got, want := rec.Input, "Weather in Paris?"; got != want {
			t.Errorf("Input = %q, want %q", got, want)
		}
		a := agent.New(rec.Model, agent.WithOutputRetries(1))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		if err == nil {
			t.Fatal("the replayed run passed; the recording failed and nothing changed")
		}
		tb := &fakeTB{}
		rec.Check(tb, res)
		if tb.reported() != 0 {
			t.Errorf("Check reported %q, want nothing: the ledger is the same", tb.errors)
		}
		for i, r := range res.Attempts {
			want := rec.Attempts[i]
			if r.InputTokens != want.InputTokens || r.OutputTokens != want.OutputTokens {
				t.Errorf("row %d tokens = %d/%d, want the recorded %d/%d", i+1, r.InputTokens, r.OutputTokens, want.InputTokens, want.OutputTokens)
			}
		}
	})
	t.Run("the recording is what the library writes now: the same agent writes the same conversation", func(t *testing.T) {
		rec := agenttest.Replay(t, path)
		a := agent.New(rec.Model, agent.WithOutputRetries(1), agent.WithSystemPrompt("You report the weather."))
		_, res, _ := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var recorded agent.Result
		if err := json.Unmarshal(b, &recorded); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Messages, recorded.Messages) {
			t.Errorf("the replay's conversation differs from the recording's:\n got %q\nwant %q", res.Messages, recorded.Messages)
		}
		if got, want := res.Attempts[0].CorrectiveMessageHash, recorded.Attempts[0].CorrectiveMessageHash; got != want {
			t.Errorf("corrective message hash = %s, the recording says %s", got, want)
		}
	})
	t.Run("the agent with the fix passes, which is better", func(t *testing.T) {
		rec := agenttest.Replay(t, path)
		a := agent.New(rec.Model, agent.WithOutputRetries(1), agent.WithMiddleware(stripFences))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		if err != nil {
			t.Fatalf("the fixed agent failed the replay: %v", err)
		}
		rec.Check(t, res)
	})
	t.Run("an agent without the retry does worse, and Check says so", func(t *testing.T) {
		rec := agenttest.Replay(t, path)
		a := agent.New(rec.Model, agent.WithOutputRetries(0))
		_, res, _ := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		tb := &fakeTB{}
		rec.Check(tb, res)
		if tb.reported() != 1 || !strings.Contains(tb.errors[0], "did worse") {
			t.Errorf("Check reported %q, want one report that the replay did worse", tb.errors)
		}
	})
}

func TestReplayCheckHoldsAPassingRecordingToItsAttempts(t *testing.T) {
	fenced := "```json\n{\"city\":\"Paris\",\"tempC\":21}\n```"
	path := record(t, 1, agenttest.Reply(fenced), agenttest.Reply(`{"city":"Paris","tempC":21}`))

	t.Run("passing in fewer attempts is better, and the steps left are not reported", func(t *testing.T) {
		tb := &fakeTB{}
		rec := agenttest.Replay(tb, path)
		a := agent.New(rec.Model, agent.WithOutputRetries(1), agent.WithMiddleware(stripFences))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		if err != nil || len(res.Attempts) != 1 {
			t.Fatalf("replay = %+v, %v; want a pass on the first attempt", res.Attempts, err)
		}
		rec.Check(tb, res)
		tb.finish()
		if tb.reported() != 0 {
			t.Errorf("reported %q, want nothing", tb.errors)
		}
	})
	t.Run("failing where the recording passed is worse", func(t *testing.T) {
		tb := &fakeTB{}
		rec := agenttest.Replay(tb, path)
		a := agent.New(rec.Model, agent.WithOutputRetries(0))
		_, res, _ := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		rec.Check(tb, res)
		if tb.reported() != 1 {
			t.Errorf("reported %q, want one report", tb.errors)
		}
	})
	t.Run("passing in more attempts is worse", func(t *testing.T) {
		tb := &fakeTB{}
		rec := agenttest.Replay(tb, path)
		worse := &agent.Result{Attempts: []enforce.Attempt{
			{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse},
			{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse},
			{Attempt: 3, Iteration: 3, Outcome: enforce.OutcomePassed},
		}}
		rec.Check(tb, worse)
		if tb.reported() != 1 {
			t.Errorf("reported %q, want one report", tb.errors)
		}
	})
}

func TestReplayRepliesAsTheRecordedModelDid(t *testing.T) {
	res := &agent.Result{
		TurnAttempts: 1,
		Messages: []agent.Message{
			{Role: agent.RoleUser, Content: "weather?"},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "final_result", Arguments: json.RawMessage(`{"city":`)}}},
			{Role: agent.RoleTool, ToolCallID: "c1", Content: "fix it"},
			{Role: agent.RoleAssistant, Content: "I can't help with that."},
		},
		Attempts: []enforce.Attempt{
			{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Truncated: true,
				Cost: enforce.Cost{InputTokens: 3, OutputTokens: 4}},
			{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeExhausted, Withheld: "refusal"},
		},
	}
	rec := agenttest.Replay(t, save(t, res))
	if got, want := rec.Input, "weather?"; got != want {
		t.Errorf("Input = %q, want the first user message %q when the result has none", got, want)
	}
	first, _ := rec.Model.Generate(t.Context(), agent.Request{})
	if first.Stop != agent.StopLength || first.Usage != (agent.Usage{InputTokens: 3, OutputTokens: 4}) ||
		string(first.Message.ToolCalls[0].Arguments) != `{"city":` {
		t.Errorf("first reply = %+v, want the cut-off call with the row's usage", first)
	}
	second, _ := rec.Model.Generate(t.Context(), agent.Request{})
	if second.Stop != agent.StopRefusal || second.Message.Content != "I can't help with that." {
		t.Errorf("second reply = %+v, want the refusal", second)
	}
}

// fatalTB is a fakeTB whose Fatalf records and ends the goroutine, as
// testing's does.
type fatalTB struct{ *fakeTB }

func (f fatalTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

func TestReplayRefusesWhatItCannotReplay(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"a file that is not a Result", `{"messages": 42}`, "is not an agent.Result"},
		{"a run of two turn attempts", `{"turnAttempts": 2}`, "holds 2 turn attempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.json")
			os.WriteFile(path, []byte(tt.body), 0o644)
			tb := fatalTB{&fakeTB{}}
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				agenttest.Replay(tb, path)
			}()
			wg.Wait()
			if tb.reported() != 1 || !strings.Contains(tb.errors[0], tt.want) {
				t.Errorf("reported %q, want one report saying %q", tb.errors, tt.want)
			}
		})
	}
}

func TestReplayOfARunThatCutAnAnswer(t *testing.T) {
	// Recorded by a streaming run: early abort stopped the first answer
	// at the byte that doomed it, so the conversation holds only that
	// much of it.
	const path = "testdata/cut-run.json"
	t.Run("the same agent cuts at the same byte and gives the same ledger", func(t *testing.T) {
		rec := agenttest.Replay(t, path)
		if rec.Attempts[0].Cut == nil {
			t.Fatalf("%s: row 1 is not cut; the test needs a cut row", path)
		}
		a := agent.New(rec.Model, agent.WithOutputRetries(1))
		_, res, err := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		if err == nil {
			t.Fatal("the replayed run passed; the recording failed and nothing changed")
		}
		tb := &fakeTB{}
		rec.Check(tb, res)
		if tb.reported() != 0 {
			t.Errorf("Check reported %q, want nothing: the ledger is the same", tb.errors)
		}
		if got, want := res.Attempts[0].Cut, rec.Attempts[0].Cut; got == nil || *got != *want {
			t.Errorf("row 1 Cut = %+v, want the recorded %+v", got, want)
		}
	})
	t.Run("an agent without the retry judges the cut answer whole and does worse", func(t *testing.T) {
		rec := agenttest.Replay(t, path)
		a := agent.New(rec.Model, agent.WithOutputRetries(0))
		_, res, _ := agent.RunTyped[Weather](t.Context(), a, rec.Input)
		tb := &fakeTB{}
		rec.Check(tb, res)
		if tb.reported() != 1 || !strings.Contains(tb.errors[0], "did worse") {
			t.Errorf("Check reported %q, want one report that the replay did worse", tb.errors)
		}
	})
}

func TestReplayCheckRefusesARecordingWithoutALedger(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("It is 21 degrees."))
	_, res, _ := agent.RunTyped[Weather](t.Context(), agent.New(m), "weather?") // no WithOutputRetries: no rows
	path := save(t, res)

	tb := &fakeTB{}
	rec := agenttest.Replay(tb, path)
	_, again, _ := agent.RunTyped[Weather](t.Context(), agent.New(rec.Model), rec.Input)
	rec.Check(tb, again)
	if tb.reported() != 1 || !strings.Contains(tb.errors[0], "holds no ledger") {
		t.Errorf("Check reported %q, want one report that the recording has no ledger", tb.errors)
	}
}

// A recording whose ledger is present but empty ("attempts": [], as a
// Result written by hand or by another encoder has it) holds the replay
// to nothing either: Check refuses it as it refuses one without the key.
func TestReplayCheckRefusesARecordingWithAnEmptyLedger(t *testing.T) {
	m := agenttest.NewModel(t, agenttest.Reply("It is 21 degrees."))
	_, res, _ := agent.RunTyped[Weather](t.Context(), agent.New(m), "weather?")
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["attempts"] = []any{}
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}

	tb := &fakeTB{}
	rec := agenttest.Replay(tb, path)
	_, again, _ := agent.RunTyped[Weather](t.Context(), agent.New(rec.Model), rec.Input)
	rec.Check(tb, again)
	if tb.reported() != 1 || !strings.Contains(tb.errors[0], "holds no ledger") {
		t.Errorf("Check reported %q, want one report that the recording has no ledger", tb.errors)
	}
}
