package agent_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// FuzzEarlyAbortOutputTool streams the arguments of an output tool's call
// in chunks of a random size, alone or after another tool's call, and
// holds the loop to the whole-answer judge: an answer that passes is
// never cut; an answer is cut exactly where an Incremental fed byte by byte
// gives its verdict, with that verdict, and the conversation keeps the
// call's arguments up to there; every completion tried of the arguments
// kept fails Check as the verdict promises (a json-parse verdict is
// Check's very error; a schema-validate one is among Check's issues of
// every completion that is one JSON value); a cut stops the stream and
// cancels its call, and the other call is not run; an answer not cut
// has no early verdict and is judged whole.
func FuzzEarlyAbortOutputTool(f *testing.F) {
	for _, a := range []string{valid, missing, doomedCall, `{"city":true}`, `{"town":"Paris"}`,
		`  {"city":"Paris","tempC":2.5}`, `[1]`, "", " \n", valid + " !", `{"city":"Pa` + "\xff", prose} {
		f.Add(a, uint8(3), false)
		f.Add(a, uint8(1), true)
	}
	s := weatherSchema(f)
	f.Fuzz(func(t *testing.T, answer string, size uint8, before bool) {
		if len(answer) > 4096 {
			return
		}
		ran := false
		lookup := agent.NewTool("lookup", "", func(_ context.Context, _ struct{}) (string, error) {
			ran = true
			return "", nil
		})
		calls := []agent.ToolCall{agenttest.Call("c1", answerTool, answer)}
		if before {
			calls = append([]agent.ToolCall{agenttest.Call("c0", "lookup", `{}`)}, calls...)
		}
		passes := s.Check(answer) == nil
		steps := []agenttest.Step{agenttest.CallTools(calls...).InChunks(int(size%32) + 1)}
		if !passes {
			steps = append(steps, agenttest.CallTools(agenttest.Call("c2", answerTool, valid)))
		}
		m := agenttest.NewStreamingModel(t, steps...)
		a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(1), agent.WithOutputTool(answerTool), agent.WithTools(lookup))
		res, err := a.Run(t.Context(), "Weather?")
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if ran {
			t.Fatal("the other call of the answer's reply ran")
		}
		row := res.Attempts[0]
		call, _ := answerCall(t, res.Messages)
		given := string(call.Arguments)
		if passes {
			if row.Outcome != enforce.OutcomePassed || row.Cut != nil || given != answer {
				t.Fatalf("a passing answer: row %+v, kept %q", row, given)
			}
			return
		}
		want, at := byteVerdict(s, answer)
		if row.Cut == nil {
			ce := checkError(t, s, answer)
			if given != answer || row.Stage != ce.Stage || row.Path != ce.Path() {
				t.Fatalf("an answer not cut: row %+v, kept %q; want it whole, judged as Check judges it (%v)", row, given, ce)
			}
			if want != nil {
				t.Fatalf("the judge dooms %q at byte %d, but it was not cut", answer, at)
			}
			return
		}
		if want == nil || row.Cut.Bytes != at || given != answer[:at] {
			t.Fatalf("cut after %d bytes (kept %q); the judge dooms the answer at %d (%v)", row.Cut.Bytes, given, at, want)
		}
		if row.Stage != want.Stage || row.Path != want.Path() || row.Error != want.Issues[0].Message {
			t.Fatalf("row %+v, want the early verdict %v", row, want)
		}
		if c := m.Consumed()[0]; !c.Stopped || !c.Cancelled || c.Chunks >= c.TotalChunks {
			t.Fatalf("consumed %+v: cut after %d bytes, want the stream stopped there and its call cancelled", c, at)
		}
		holdsForCompletions(t, s, given, want, answer[at:])
	})
}

// completions are endings tried after the bytes of a cut answer: none,
// closers, and members that would make the weather whole.
var completions = []string{"", "}", `"}`, "]}", `"]}`, "0}", ":1}", `":1}`, `,"tempC":1}`, `","tempC":1}`,
	`":"Paris","tempC":1}`, `"Paris","tempC":1}`, `:"x"}`, "1}", " }", "e1}", `"},"tempC":1}`}

// holdsForCompletions checks a cut's promise: kept, followed by any of
// completions or by rest (what the model would have written), fails
// Check as the early verdict promises.
func holdsForCompletions(t *testing.T, s *enforce.Schema, kept string, v *enforce.CheckError, rest string) {
	t.Helper()
	for _, c := range append(completions, rest) {
		whole := kept + c
		var ce *enforce.CheckError
		if !errors.As(s.Check(whole), &ce) {
			t.Fatalf("cut at %q (%v), but %q passes", kept, v, whole)
		}
		early := v.Issues[0]
		switch {
		case v.Stage == enforce.StageJSONParse:
			if ce.Stage != v.Stage || ce.Issues[0] != early {
				t.Fatalf("cut at %q with %v, but Check(%q) = %v", kept, v, whole, ce)
			}
		case ce.Stage == enforce.StageSchemaValidate:
			if !slices.ContainsFunc(ce.Issues, func(i enforce.Issue) bool { return i.Path == early.Path && i.Keyword == early.Keyword }) {
				t.Fatalf("cut at %q with %v, but Check(%q) = %v, without that issue", kept, v, whole, ce)
			}
		}
	}
}
