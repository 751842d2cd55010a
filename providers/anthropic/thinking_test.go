package anthropic

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

type weather struct {
	City  string `json:"city"`
	TempC int    `json:"tempC"`
}

const paris = `{"city":"Paris","tempC":18}`

// thinkingBlocks are a reply's thinking as extended thinking gives it:
// two signed thinking blocks and a redacted one, in order.
const thinkingBlocks = `{"type":"thinking","thinking":"Paris in June.","signature":"EqQBCkYIBxgCKkBsig1"},` +
	`{"type":"thinking","thinking":"About 18 degrees.","signature":"EqQBCkYIBxgCKkBsig2"},` +
	`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}`

func TestThinkingBlocksAreKeptApart(t *testing.T) {
	body := stopped("end_turn", `[`+thinkingBlocks+`,`+textBlock(paris)[1:])
	wantRaw := `[` + thinkingBlocks + `]`
	check := func(t *testing.T, msg agent.Message) {
		t.Helper()
		if msg.Content != paris || msg.Reasoning != "Paris in June.\n\nAbout 18 degrees." {
			t.Errorf("message = %+v, want the answer, and the thinking apart", msg)
		}
		var got, want any
		json.Unmarshal(msg.ReasoningRaw, &got)
		json.Unmarshal([]byte(wantRaw), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ReasoningRaw = %s, want every block as it came: %s", msg.ReasoningRaw, wantRaw)
		}
	}
	t.Run("whole", func(t *testing.T) {
		srv := newFakeServer(t, okReply(body))
		resp, err := New(srv.client(), "claude-sonnet-4-5").Generate(context.Background(), userTurn)
		if err != nil {
			t.Fatal(err)
		}
		check(t, resp.Message)
	})
	t.Run("streamed, through the agent", func(t *testing.T) {
		srv := newFakeServer(t, okReply(body))
		a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithOutputRetries(0))
		_, res, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		check(t, res.Messages[len(res.Messages)-1])
		if got, want := res.Attempts[0].Thinking, (&enforce.Thinking{Bytes: len("Paris in June.\n\nAbout 18 degrees.")}); !reflect.DeepEqual(got, want) {
			t.Errorf("row's Thinking = %+v, want %+v", got, want)
		}
	})
}

func TestThinkingBlocksGoBackInAToolLoop(t *testing.T) {
	call := stopped("tool_use", `[`+thinkingBlocks+`,{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}}]`)
	// The answer fails once: its thinking is not sent back with the
	// correction, the tool-calling turn's still is.
	prose := stopped("end_turn", `[{"type":"thinking","thinking":"Answer now.","signature":"sig3"},`+textBlock("It is sunny.")[1:])
	srv := newFakeServer(t, okReply(call), okReply(prose), okReply(message(paris)))
	tool := agent.NewTool("weather", "the weather", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "18", nil
	})
	a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithTools(tool), agent.WithOutputRetries(1))
	if _, _, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	var req struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.requests()[2], &req); err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for _, m := range req.Messages {
		if m.Role != "assistant" {
			continue
		}
		var blocks []any
		for _, b := range m.Content {
			var v map[string]any
			json.Unmarshal(b, &v)
			if v["type"] == "thinking" || v["type"] == "redacted_thinking" {
				blocks = append(blocks, v)
			}
		}
		got = append(got, blocks)
	}
	var want []any
	json.Unmarshal([]byte(`[`+thinkingBlocks+`]`), &want)
	if len(got) != 2 || !reflect.DeepEqual(got[0], want) || got[1] != nil {
		t.Errorf("assistant messages' thinking sent = %v, want the tool-calling turn's blocks unchanged (%v), then none", got, want)
	}
}

func TestThinkingToTheLimitIsAnAnswerThatNeverCame(t *testing.T) {
	srv := newFakeServer(t,
		okReply(stopped("max_tokens", `[{"type":"thinking","thinking":"Let me consider Paris","signature":""}]`)),
		okReply(message(paris)))
	a := agent.New(New(srv.client(), "claude-sonnet-4-5"), agent.WithOutputRetries(1))
	_, res, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Attempts[0]; got.Stage != enforce.StageNoAnswer || !got.Truncated {
		t.Errorf("first row = %+v, want no-answer, truncated", got)
	}
}
