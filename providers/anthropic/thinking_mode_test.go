package anthropic

import (
	"context"
	"slices"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
)

// withThinking turns extended thinking on, as a caller does.
var withThinking = WithParams(func(p *sdk.MessageNewParams) { p.Thinking = sdk.ThinkingConfigParamOfEnabled(2048) })

const noNative = "no native mode configured (WithNativeSchema); "

func TestThinkingReportsNoForcedToolAndAutoModeAsksPrompted(t *testing.T) {
	city := wiretest.SchemaOf[City](t)
	if got := New(newFakeServer(t).client(), "claude-sonnet-4-5", withThinking).OutputModes(city); got.Tools || got.Why != noNative+whyThinking {
		t.Errorf("with thinking: %+v, want no tools, why %q", got, noNative+whyThinking)
	}
	if got := New(newFakeServer(t).client(), "claude-sonnet-4-5", withThinking, WithNativeSchema()).OutputModes(city); !got.Native || got.Tools {
		t.Errorf("with thinking and WithNativeSchema: %+v, want native alone", got)
	}
	srv := newFakeServer(t, okReply(stopped("end_turn", `[{"type":"thinking","thinking":"Paris.","signature":"sig"},{"type":"text","text":"{\"name\":\"Paris\"}"}]`)))
	s, err := enforce.SchemaFor[City]()
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(New(srv.client(), "claude-sonnet-4-5", withThinking), agent.WithOutputSchema(s), agent.WithAutoOutputMode("final_result"))
	res, err := a.Run(context.Background(), "Where is the Louvre?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Modes, []agent.ModeChoice{{Iteration: 1, Mode: agent.ModePrompted, Why: noNative + whyThinking + "; no tool output"}}; !slices.Equal(got, want) {
		t.Errorf("Modes = %+v, want %+v", got, want)
	}
	if _, keys := decodeRequest(t, srv.requests()[0]); keys["tools"] != nil || keys["tool_choice"] != nil {
		t.Errorf("sent tools %s, tool_choice %s; want neither", keys["tools"], keys["tool_choice"])
	}
}

func TestThinkingSendsTheOutputToolUnforced(t *testing.T) {
	srv := newFakeServer(t, okReply(toolUse("toolu_1", "final_result", `{"name":"Paris"}`)))
	s, err := enforce.SchemaFor[City]()
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(New(srv.client(), "claude-sonnet-4-5", withThinking), agent.WithOutputSchema(s), agent.WithOutputTool("final_result"))
	if _, err := a.Run(context.Background(), "Where is the Louvre?"); err != nil {
		t.Fatal(err)
	}
	if _, keys := decodeRequest(t, srv.requests()[0]); string(keys["tool_choice"]) != `{"type":"auto"}` {
		t.Errorf("tool_choice = %s, want {\"type\":\"auto\"}: the API refuses a forced tool call while thinking", keys["tool_choice"])
	}
}
