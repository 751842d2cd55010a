package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// degenerateBounds are bounds a caller might choose.
var degenerateBounds = agent.Degenerate{Whitespace: 64, Window: 512, Repeats: 8}

func compile(t *testing.T, schema string) *enforce.Schema {
	t.Helper()
	s, err := enforce.CompileSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDegenerateStreamsAreCutWithARowOfTheirOwn(t *testing.T) {
	tags := `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},"required":["tags"],"additionalProperties":false}`
	summary := `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`
	for _, tc := range []struct {
		name, schema, prefix, unit, fixed string
		// want is how many bytes are kept: the prefix and as much of the
		// loop as the bound lets through (a repetition is looked at every
		// 128 bytes, once 512 have come).
		want int
	}{
		// A native JSON mode on a local server: the grammar allows blank
		// space between tokens, and the model takes it to the limit.
		{"endless newlines", "", `{"city":"Paris",`, "\n", valid, len(`{"city":"Paris",`) + 65},
		{"one item again and again", tags, `{"tags":[`, `"a",`, `{"tags":["a"]}`, 640},
		{"a repeated sentence", summary, `{"summary":"`, "The weather in Paris is fine today. ", `{"summary":"Fine."}`, 640},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := weatherSchema(t)
			if tc.schema != "" {
				s = compile(t, tc.schema)
			}
			loop := tc.prefix + strings.Repeat(tc.unit, (1<<16)/len(tc.unit))
			m := agenttest.NewStreamingModel(t, agenttest.Reply(loop).InChunks(7), agenttest.Reply(tc.fixed))
			ag := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(1), agent.WithDegenerateStop(degenerateBounds))
			res, err := ag.Run(context.Background(), "go")
			if err != nil {
				t.Fatal(err)
			}
			first := res.Attempts[0]
			if first.Outcome != enforce.OutcomeRetried || first.Stage != enforce.StageDegenerate || first.Cut == nil {
				t.Fatalf("first row %+v, want retried at stage degenerate, cut", first)
			}
			if first.Cut.Bytes != tc.want {
				t.Errorf("cut after %d bytes, want %d", first.Cut.Bytes, tc.want)
			}
			if c := m.Consumed()[0]; !c.Stopped || c.Bytes > first.Cut.Bytes+7 {
				t.Errorf("read %+v, want the stream stopped at the cut", c)
			}
			if got := res.Messages[2].Content; len(got) != first.Cut.Bytes {
				t.Errorf("the conversation keeps %d bytes of the answer, want the %d read", len(got), first.Cut.Bytes)
			}
			if corr := res.Messages[3].Content; !strings.Contains(corr, "degenerated") || strings.Contains(corr, "could no longer satisfy") {
				t.Errorf("corrective turn %q, want it to say the answer degenerated, not that it broke the format", corr)
			}
		})
	}
}

func TestDegenerateAnswerThatAlreadyKeepsTheContractIsTakenAsItIs(t *testing.T) {
	m := agenttest.NewStreamingModel(t, agenttest.Reply(valid+strings.Repeat("\n", 1<<20)).InChunks(100))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithDegenerateStop(degenerateBounds))
	res, err := ag.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(res.Attempts); !slices.Equal(got, []row{{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomePassed}}) {
		t.Errorf("rows %+v, want one passed", got)
	}
	if c := m.Consumed()[0]; !c.Stopped {
		t.Errorf("read %+v, want the blank space after the answer not read to its end", c)
	}
}

func TestDegenerateStopIsOffByDefault(t *testing.T) {
	answer := `{"city":"Paris",` + strings.Repeat("\n", 100_000) + `"tempC":21}`
	m := agenttest.NewStreamingModel(t, agenttest.Reply(answer).InChunks(1000))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1))
	res, err := ag.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Consumed()[0]; c.Stopped || res.Attempts[0].Outcome != enforce.OutcomePassed {
		t.Errorf("read %+v, rows %+v: without the option blank space is read and judged", c, res.Attempts)
	}
}

func TestDegenerateIsNotTheEarlyVerdict(t *testing.T) {
	// Prose is doomed at its first byte: the early verdict's row says
	// json-parse, as it does without the option.
	m := agenttest.NewStreamingModel(t, agenttest.Reply(prose+strings.Repeat(" ", 1000)).InChunks(3), agenttest.Reply(valid))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1), agent.WithDegenerateStop(degenerateBounds))
	res, err := ag.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Attempts[0]; r.Stage != enforce.StageJSONParse || r.Cut == nil || r.Cut.Bytes != 1 {
		t.Errorf("row %+v, want the early verdict at json-parse after 1 byte", r)
	}
}

func TestDegenerateWithoutRetriesEndsTheRunAtStageDegenerate(t *testing.T) {
	m := agenttest.NewStreamingModel(t, agenttest.Reply(`{"city":"`+strings.Repeat("ab", 1<<18)).InChunks(64))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithDegenerateStop(agent.Degenerate{Window: 128, Repeats: 16}))
	_, err := ag.Run(context.Background(), "go")
	oe, ok := err.(*enforce.OutputError)
	if !ok || oe.Stage != enforce.StageDegenerate {
		t.Fatalf("err = %v, want an *enforce.OutputError at stage degenerate", err)
	}
	if c := m.Consumed()[0]; !c.Stopped {
		t.Errorf("read %+v, want the stream stopped", c)
	}
}

func TestDegenerateOptionsAreChecked(t *testing.T) {
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		t.Error("the model was called")
		return agent.Response{}, nil
	})
	for _, tc := range []struct {
		name string
		d    agent.Degenerate
	}{
		{"no bound", agent.Degenerate{}},
		{"negative whitespace", agent.Degenerate{Whitespace: -1}},
		{"a window too wide", agent.Degenerate{Window: 1<<16 + 1, Repeats: 2}},
		{"one repeat", agent.Degenerate{Window: 64, Repeats: 1}},
		{"repeats without a window", agent.Degenerate{Whitespace: 8, Repeats: 4}},
		{"repeats as wide as the window", agent.Degenerate{Window: 8, Repeats: 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithDegenerateStop(tc.d))
			if _, err := ag.Run(context.Background(), "x"); !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("err = %v, want ErrInvalidOption", err)
			}
		})
	}
	t.Run("without a schema", func(t *testing.T) {
		if _, err := agent.New(m, agent.WithDegenerateStop(degenerateBounds)).Run(context.Background(), "x"); !errors.Is(err, agent.ErrInvalidOption) {
			t.Errorf("err = %v, want ErrInvalidOption", err)
		}
	})
}

func TestDegenerateOutputToolArgumentsAreCutAndCorrectedAsTheCallsResult(t *testing.T) {
	args := `{"city":"Paris",` + strings.Repeat(" ", 1<<16)
	m := agenttest.NewStreamingModel(t,
		agenttest.CallTools(agenttest.Call("c1", "final_result", args)).InChunks(9),
		agenttest.CallTools(agenttest.Call("c2", "final_result", valid)))
	ag := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithOutputTool("final_result"), agent.WithDegenerateStop(degenerateBounds))
	res, err := ag.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	first := res.Attempts[0]
	if first.Stage != enforce.StageDegenerate || first.Cut == nil || first.Cut.Bytes != len(`{"city":"Paris",`)+65 {
		t.Fatalf("first row %+v, want stage degenerate, cut after %d bytes", first, len(`{"city":"Paris",`)+65)
	}
	if r := res.Messages[3]; r.Role != agent.RoleTool || r.ToolCallID != "c1" || !strings.Contains(r.Content, "degenerated") {
		t.Errorf("correction %+v, want the call's result saying it degenerated", r)
	}
}

func TestADegenerateStopCutsAtACharactersBoundary(t *testing.T) {
	summary := `{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`
	// The window's check points fall inside the 3-byte characters.
	loop := `{"summary":"` + strings.Repeat("日本", 2000)
	m := agenttest.NewStreamingModel(t, agenttest.Reply(loop).InChunks(5), agenttest.Reply(`{"summary":"Fine."}`))
	ag := agent.New(m, agent.WithOutputSchema(compile(t, summary)), agent.WithOutputRetries(1),
		agent.WithDegenerateStop(agent.Degenerate{Window: 64, Repeats: 4}))
	res, err := ag.Run(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	first := res.Attempts[0]
	if first.Stage != enforce.StageDegenerate || first.Cut == nil {
		t.Fatalf("first row %+v, want a degenerate cut", first)
	}
	kept := res.Messages[2].Content // system, user, the cut answer
	if !utf8.ValidString(kept) || len(kept) != first.Cut.Bytes || !utf8.ValidString(first.Error) {
		t.Errorf("kept %d bytes (valid UTF-8: %t; cut says %d), row's error %q (valid: %t)",
			len(kept), utf8.ValidString(kept), first.Cut.Bytes, first.Error, utf8.ValidString(first.Error))
	}
	if !strings.Contains(first.Error, `"日本"`) && !strings.Contains(first.Error, `"本日"`) {
		t.Errorf("row's error %q, want it to quote the unit whole", first.Error)
	}
}
