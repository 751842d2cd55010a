package agenttest_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
)

// read reads a stream whole, or up to stopAt chunks when stopAt > 0.
func read(seq func(func(agent.Chunk, error) bool), stopAt int) (got []agent.Chunk, err error) {
	for c, e := range seq {
		if e != nil {
			return got, e
		}
		got = append(got, c)
		if len(got) == stopAt {
			break
		}
	}
	return got, nil
}

func TestStreamingModelStreamsEachStepInChunks(t *testing.T) {
	m := agenttest.NewStreamingModel(t,
		agenttest.Reply("abcdefg").InChunks(2, 3).WithUsage(5, 6),
		agenttest.CallTools(agenttest.Call("c1", "lookup", `{"a":1}`)).InChunks(4),
	)
	if _, ok := agent.Model(m).(agent.StreamingModel); !ok {
		t.Fatal("a StreamingModel is no agent.StreamingModel")
	}

	got, err := read(m.GenerateStream(t.Context(), request("one")), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.Chunk{{Text: "ab"}, {Text: "cde"}, {Text: "fg"},
		{Usage: agent.Usage{InputTokens: 5, OutputTokens: 6}, Stop: agent.StopComplete, StopRaw: "complete"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reply 1 = %+v, want %+v", got, want)
	}

	got, err = read(m.GenerateStream(t.Context(), request("two")), 0)
	if err != nil {
		t.Fatal(err)
	}
	want = []agent.Chunk{
		{Call: &agent.CallDelta{Index: 0, ID: "c1", Name: "lookup", Arguments: `{"a"`}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `:1}`}},
		{Stop: agent.StopToolUse, StopRaw: "tool_use"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reply 2 = %+v, want %+v", got, want)
	}
	c := m.Consumed()
	if len(c) != 2 || c[0] != (agenttest.Consumed{Chunks: 4, Bytes: 7, TotalChunks: 4, TotalBytes: 7}) {
		t.Errorf("Consumed = %+v, want both replies read whole", c)
	}
	if got := m.Calls(); got != 2 {
		t.Errorf("Calls = %d, want 2", got)
	}
}

func TestConsumedSaysWhereTheReaderStopped(t *testing.T) {
	t.Run("a reader that breaks out", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply("abcdefgh").InChunks(3))
		if _, err := read(m.GenerateStream(t.Context(), request("q")), 2); err != nil {
			t.Fatal(err)
		}
		if got, want := m.Consumed()[0], (agenttest.Consumed{Chunks: 2, Bytes: 6, TotalChunks: 4, TotalBytes: 8, Stopped: true}); got != want {
			t.Errorf("Consumed = %+v, want %+v", got, want)
		}
	})
	t.Run("a reader that cancels the call", func(t *testing.T) {
		m := agenttest.NewStreamingModel(t, agenttest.Reply("abcdefgh").InChunks(3))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		n := 0
		var err error
		for _, e := range m.GenerateStream(ctx, request("q")) {
			if e != nil {
				err = e
				break
			}
			if n++; n == 1 {
				cancel()
			}
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the context's cause", err)
		}
		if got, want := m.Consumed()[0], (agenttest.Consumed{Chunks: 1, Bytes: 3, TotalChunks: 4, TotalBytes: 8, Stopped: true, Cancelled: true}); got != want {
			t.Errorf("Consumed = %+v, want %+v", got, want)
		}
	})
}

func TestFailAfterFailsMidStream(t *testing.T) {
	lost := errors.New("connection lost")
	m := agenttest.NewStreamingModel(t, agenttest.Reply("abcdef").InChunks(2).FailAfter(2, lost), agenttest.Reply("x").FailAfter(0, lost))
	got, err := read(m.GenerateStream(t.Context(), request("q")), 0)
	if !errors.Is(err, lost) || len(got) != 2 {
		t.Errorf("read %d chunks, err %v; want 2, then the failure", len(got), err)
	}
	if _, err := m.Generate(t.Context(), request("q")); !errors.Is(err, lost) {
		t.Errorf("Generate err = %v, want the failure", err)
	}
}

func TestStreamIsAssembledByGenerate(t *testing.T) {
	step := agenttest.Chunks(
		agent.Chunk{Text: "Let me check. "},
		agent.Chunk{Call: &agent.CallDelta{Index: 0, ID: "c1", Name: "lookup", Arguments: `{"city":`}},
		agent.Chunk{Call: &agent.CallDelta{Index: 0, Arguments: `"Paris"}`}, Usage: agent.Usage{InputTokens: 9}},
		agent.Chunk{Stop: agent.StopToolUse, StopRaw: "tool_calls", Usage: agent.Usage{OutputTokens: 4}},
	)
	resp, err := agenttest.NewModel(t, step).Generate(t.Context(), request("q"))
	if err != nil {
		t.Fatal(err)
	}
	want := agent.Response{
		Message: agent.Message{Role: agent.RoleAssistant, Content: "Let me check. ",
			ToolCalls: []agent.ToolCall{agenttest.Call("c1", "lookup", `{"city":"Paris"}`)}},
		Usage: agent.Usage{InputTokens: 9, OutputTokens: 4}, Stop: agent.StopToolUse, StopRaw: "tool_calls",
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("Generate = %+v, want %+v", resp, want)
	}
}

func TestAChunkSizeBelowOneIsReported(t *testing.T) {
	tb := &fakeTB{}
	m := agenttest.NewStreamingModel(tb, agenttest.Reply("abc").InChunks(0))
	if got := tb.reported(); got != 1 || !strings.Contains(tb.errors[0], "chunk size 0") {
		t.Errorf("reported %q, want one report naming the size", tb.errors)
	}
	got, _ := read(m.GenerateStream(t.Context(), request("q")), 0)
	if len(got) != 2 || got[0].Text != "abc" {
		t.Errorf("chunks = %+v, want the text whole", got)
	}
}
