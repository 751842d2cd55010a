package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/fnv"
)

// reporting is a scripted model that says which output modes it takes.
type reporting struct {
	*agenttest.Model
	modes agent.Modes
	seen  []json.RawMessage // the contracts it was asked about
}

func (r *reporting) OutputModes(contract json.RawMessage) agent.Modes {
	r.seen = append(r.seen, contract)
	return r.modes
}

// refused is the error an adapter returns for a 400 refusing mode.
func refused(mode agent.OutputMode) agenttest.Step {
	return agenttest.Fail(&agent.ProviderError{System: "fake", Kind: events.KindForStatus(http.StatusBadRequest),
		HTTPStatus: http.StatusBadRequest, Message: "not supported", Unsupported: mode})
}

// modeSent says how a request carried the contract.
func modeSent(req agent.Request) agent.OutputMode {
	switch {
	case req.RequireToolCall && slices.ContainsFunc(req.Tools, func(t agent.ToolSpec) bool { return t.Name == answerTool }):
		return agent.ModeTool
	case req.OutputSchema != nil:
		return agent.ModeNative
	}
	return agent.ModePrompted
}

func modesOf(rows []enforce.Attempt) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Mode)
	}
	return out
}

func TestAutoOutputModeChoosesFromWhatTheModelSays(t *testing.T) {
	toolAnswer := agenttest.CallTools(agenttest.Call("c1", answerTool, valid))
	tests := []struct {
		name  string
		modes *agent.Modes // nil: the model says nothing
		reply agenttest.Step
		want  agent.OutputMode
		why   string
	}{
		{"native when the provider enforces the whole contract", &agent.Modes{Native: true, Tools: true, Why: "exact"},
			agenttest.Reply(valid), agent.ModeNative, "exact"},
		{"tool when it does not and the model takes tools", &agent.Modes{Tools: true, Why: "2 keywords left out"},
			toolAnswer, agent.ModeTool, "2 keywords left out; tool output instead"},
		{"prompted when the model takes no tools either", &agent.Modes{Why: "no native mode"},
			agenttest.Reply(valid), agent.ModePrompted, "no native mode; no tool output"},
		{"native with keywords left out when the model takes no tools", &agent.Modes{Strict: true, Why: "1 keyword left out"},
			agenttest.Reply(valid), agent.ModeNative, "1 keyword left out; no tool output: native, what it leaves out judged here alone"},
		{"prompted for a model that says nothing", nil,
			agenttest.Reply(valid), agent.ModePrompted, "the model does not say which output modes it takes; no tool output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scripted := agenttest.NewModel(t, tt.reply)
			var m agent.Model = scripted
			if tt.modes != nil {
				m = &reporting{Model: scripted, modes: *tt.modes}
			}
			a := agent.New(m, agent.WithAutoOutputMode(answerTool), agent.WithOutputRetries(1))
			w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if w != (Weather{City: "Paris", TempC: 21}) {
				t.Errorf("answer = %+v", w)
			}
			if got := modeSent(scripted.Requests()[0]); got != tt.want {
				t.Errorf("sent %s, want %s", got, tt.want)
			}
			if got, want := res.Modes, []agent.ModeChoice{{Iteration: 1, Mode: tt.want, Why: tt.why}}; !slices.Equal(got, want) {
				t.Errorf("Modes = %+v, want %+v", got, want)
			}
			if got, want := modesOf(res.Attempts), []string{string(tt.want)}; !slices.Equal(got, want) {
				t.Errorf("rows' modes = %q, want %q", got, want)
			}
		})
	}
}

func TestAutoOutputModeAsksForTheContractAsTheModelWillSeeIt(t *testing.T) {
	m := &reporting{Model: agenttest.NewModel(t, agenttest.Reply(valid)), modes: agent.Modes{Native: true}}
	if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithAutoOutputMode(answerTool)), "w?"); err != nil {
		t.Fatal(err)
	}
	if len(m.seen) != 1 || string(m.seen[0]) != string(m.Requests()[0].OutputSchema) {
		t.Errorf("asked about %s, want once, about the OutputSchema sent (%s)", m.seen, m.Requests()[0].OutputSchema)
	}
}

func TestAutoOutputModeSendsAContractWhoseRootIsNoObjectPrompted(t *testing.T) {
	s, err := enforce.CompileSchema([]byte(`{"type":"array","items":{"type":"string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := &reporting{Model: agenttest.NewModel(t, agenttest.Reply(`["a"]`)), modes: agent.Modes{Tools: true}}
	res, err := agent.New(m, agent.WithOutputSchema(s), agent.WithAutoOutputMode(answerTool)).Run(t.Context(), "list?")
	if err != nil {
		t.Fatal(err)
	}
	if got := modeSent(m.Requests()[0]); got != agent.ModePrompted || res.Modes[0].Mode != agent.ModePrompted ||
		!strings.Contains(res.Modes[0].Why, "root is not an object") {
		t.Errorf("sent %s, Modes %+v; want prompted, saying the root is not an object", got, res.Modes)
	}
}

func TestAutoOutputModeMovesOnWhenTheProviderRefusesTheMode(t *testing.T) {
	scripted := agenttest.NewModel(t,
		refused(agent.ModeNative),
		refused(agent.ModeTool),
		agenttest.Reply(missing), // prompted: fails, corrected, still prompted
		agenttest.Reply(valid),
	)
	m := &reporting{Model: scripted, modes: agent.Modes{Native: true, Tools: true, Why: "exact"}}
	_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithAutoOutputMode(answerTool), agent.WithOutputRetries(1)), "w?")
	if err != nil {
		t.Fatal(err)
	}
	var got []agent.OutputMode
	for _, req := range scripted.Requests() {
		got = append(got, modeSent(req))
	}
	if want := []agent.OutputMode{agent.ModeNative, agent.ModeTool, agent.ModePrompted, agent.ModePrompted}; !slices.Equal(got, want) {
		t.Errorf("requests sent %v, want %v", got, want)
	}
	wantModes := []agent.ModeChoice{
		{Iteration: 1, Mode: agent.ModeNative, Why: "exact"},
		{Iteration: 1, Mode: agent.ModeTool, Why: "the provider refused native output (HTTP 400)", Unsupported: agent.ModeNative},
		{Iteration: 1, Mode: agent.ModePrompted, Why: "the provider refused tool output (HTTP 400)", Unsupported: agent.ModeTool},
	}
	if !slices.Equal(res.Modes, wantModes) {
		t.Errorf("Modes = %+v\nwant %+v", res.Modes, wantModes)
	}
	if res.Iterations != 2 {
		t.Errorf("Iterations = %d, want 2: a refused call is no iteration", res.Iterations)
	}
	if got, want := modesOf(res.Attempts), []string{"prompted", "prompted"}; !slices.Equal(got, want) {
		t.Errorf("rows' modes = %q, want %q", got, want)
	}
	// The system message says to answer as the mode in force asks.
	third := scripted.Requests()[2].Messages[0]
	if third.Role != agent.RoleSystem || strings.Contains(third.Content, "calling the tool") || !strings.Contains(third.Content, "JSON Schema") {
		t.Errorf("system message in prompted mode = %q", third.Content)
	}
	if second := scripted.Requests()[1].Messages[0]; !strings.Contains(second.Content, `calling the tool "final_result"`) {
		t.Errorf("system message in tool mode = %q, want it to say to call the tool", second.Content)
	}
}

func TestAutoOutputModeMovesFromNativeToPromptedForAModelWithoutTools(t *testing.T) {
	scripted := agenttest.NewModel(t, refused(agent.ModeNative), agenttest.Reply(valid))
	m := &reporting{Model: scripted, modes: agent.Modes{Native: true}}
	_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithAutoOutputMode(answerTool)), "w?")
	if err != nil {
		t.Fatal(err)
	}
	if got := modeSent(scripted.Requests()[1]); got != agent.ModePrompted || len(res.Modes) != 2 || res.Modes[1].Mode != agent.ModePrompted {
		t.Errorf("then sent %s, Modes %+v; want prompted", got, res.Modes)
	}
}

func TestAutoOutputModeFailsTheRunForARefusalItCannotMoveOnFrom(t *testing.T) {
	tests := []struct {
		name  string
		modes agent.Modes
		steps []agenttest.Step
	}{
		{"prompted output refused", agent.Modes{}, []agenttest.Step{refused(agent.ModePrompted)}},
		{"a refusal of a mode not in force", agent.Modes{Native: true}, []agenttest.Step{refused(agent.ModeTool)}},
		{"a 400 that names no mode", agent.Modes{Native: true}, []agenttest.Step{refused("")}},
		{"the next mode refused too, with nowhere left", agent.Modes{Native: true, Tools: true},
			[]agenttest.Step{refused(agent.ModeNative), refused(agent.ModeTool), refused(agent.ModePrompted)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &reporting{Model: agenttest.NewModel(t, tt.steps...), modes: tt.modes}
			_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithAutoOutputMode(answerTool)), "w?")
			var pe *agent.ProviderError
			if !errors.Is(err, agent.ErrModel) || !errors.As(err, &pe) {
				t.Fatalf("err = %v, want the provider's error", err)
			}
			if res == nil || len(res.Modes) != len(tt.steps) {
				t.Errorf("Modes = %+v, want the first choice and one per move", res.Modes)
			}
		})
	}
}

func TestWithoutAutoOutputModeARefusalIsTheRunsError(t *testing.T) {
	m := agenttest.NewModel(t, refused(agent.ModeNative))
	_, res, err := agent.RunTyped[Weather](t.Context(), agent.New(m, agent.WithOutputRetries(1)), "w?")
	if !errors.Is(err, agent.ErrModel) || res.Modes != nil {
		t.Errorf("err = %v, Modes = %+v; want the provider's error and no modes", err, res.Modes)
	}
}

func TestWithAutoOutputModeRefusesWhatItCannotDo(t *testing.T) {
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		t.Fatal("the model was called")
		return agent.Response{}, nil
	})
	for _, tt := range []struct {
		name string
		opts []agent.Option
	}{
		{"a tool name outside a-z, 0-9, _ and -", []agent.Option{agent.WithAutoOutputMode("final answer")}},
		{"beside WithOutputTool", []agent.Option{agent.WithAutoOutputMode(answerTool), agent.WithOutputTool("other")}},
		{"a name WithTools has", []agent.Option{agent.WithAutoOutputMode("lookup"),
			agent.WithTools(agent.NewTool("lookup", "", func(context.Context, struct{}) (string, error) { return "", nil }))}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := agent.RunTyped[Weather](t.Context(), agent.New(m, tt.opts...), "w?"); !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("err = %v, want ErrInvalidOption", err)
			}
		})
	}
	t.Run("without a contract", func(t *testing.T) {
		if _, err := agent.New(m, agent.WithAutoOutputMode(answerTool)).Run(t.Context(), "w?"); !errors.Is(err, agent.ErrInvalidOption) {
			t.Errorf("err = %v, want ErrInvalidOption", err)
		}
	})
}

// A run that escalates to another model chooses the output mode anew for
// it: model A takes the contract natively, B only as a tool call.
func TestAutoOutputModeChoosesAgainForTheModelEscalatedTo(t *testing.T) {
	a := &reporting{Model: agenttest.NewModel(t, agenttest.Reply(`{"city":"Paris"}`)), modes: agent.Modes{Native: true, Tools: true, Why: "exact"}}
	b := &reporting{Model: agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", answerTool, valid))), modes: agent.Modes{Tools: true, Why: "no native mode"}}
	ag := agent.New(a, agent.WithAutoOutputMode(answerTool), agent.WithOutputRetries(1),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, AfterFailures: 1}))
	_, res, err := agent.RunTyped[Weather](t.Context(), ag, "w?")
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.ModeChoice{
		{Iteration: 1, Mode: agent.ModeNative, Why: "exact"},
		{Iteration: 2, Mode: agent.ModeTool, Why: "no native mode; tool output instead"},
	}
	if !slices.Equal(res.Modes, want) {
		t.Errorf("modes = %+v, want %+v", res.Modes, want)
	}
	if got := modeSent(b.Requests()[0]); got != agent.ModeTool {
		t.Errorf("B was asked in %s, want tool", got)
	}
	if got := modesOf(res.Attempts); !slices.Equal(got, []string{"native", "tool"}) {
		t.Errorf("rows' modes = %v, want native, tool", got)
	}
	if len(b.seen) != 1 {
		t.Errorf("B was asked about %d contracts, want 1", len(b.seen))
	}
}

func TestEscalationOutOfToolModeTellsThePromptedModelWhatWasWrong(t *testing.T) {
	a := &reporting{Model: agenttest.NewModel(t, agenttest.CallTools(agenttest.Call("c1", answerTool, missing))), modes: agent.Modes{Tools: true}}
	b := agenttest.NewModel(t, agenttest.Reply(valid)) // says nothing of its modes: prompted
	ag := agent.New(a, agent.WithAutoOutputMode(answerTool), agent.WithOutputRetries(1),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, AfterFailures: 1}))
	_, res, err := agent.RunTyped[Weather](t.Context(), ag, "w?")
	if err != nil {
		t.Fatal(err)
	}
	if got := modesOf(res.Attempts); !slices.Equal(got, []string{"tool", "prompted"}) {
		t.Fatalf("rows' modes = %v, want tool, prompted", got)
	}
	req := b.Requests()[0]
	if got := modeSent(req); got != agent.ModePrompted {
		t.Errorf("B was asked in %s, want prompted", got)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != agent.RoleUser || fnv.Hex32a(last.Content) != res.Attempts[0].CorrectiveMessageHash {
		t.Errorf("B's last message = %+v, want the corrective turn (hash %s) as a user message", last, res.Attempts[0].CorrectiveMessageHash)
	}
	// B takes no tools: the output tool's call is its arguments in text,
	// so no provider is sent a call of a tool the request does not declare.
	for _, m := range req.Messages {
		if len(m.ToolCalls) > 0 || m.ToolCallID != "" {
			t.Errorf("B was sent %+v, a tool call or result with no tool declared", m)
		}
	}
	if got := req.Messages[len(req.Messages)-2]; got.Role != agent.RoleAssistant || got.Content != missing {
		t.Errorf("B was sent the failed answer as %+v, want the assistant's text %q", got, missing)
	}
	// The run's own conversation keeps the call as the model made it.
	if !slices.ContainsFunc(res.Messages, func(m agent.Message) bool { return m.ToolCallID == "c1" }) {
		t.Errorf("the run's messages lost the output tool's call c1")
	}
}

// streamingReporting is a streaming scripted model that says which output
// modes it takes.
type streamingReporting struct {
	*agenttest.StreamingModel
	modes agent.Modes
}

func (r streamingReporting) OutputModes(json.RawMessage) agent.Modes { return r.modes }

func TestProseBeforeTheOutputToolsCallIsNoAnswerInAutoToolModeAsInOutputToolMode(t *testing.T) {
	// Blank lines a degenerate stop would cut, were the text the answer.
	prose := agent.Chunk{Text: "Here is the weather." + strings.Repeat("\n", 20)}
	call := agent.Chunk{Call: &agent.CallDelta{Index: 0, ID: "c1", Name: answerTool, Arguments: valid}}
	for _, opt := range []agent.Option{agent.WithOutputTool(answerTool), agent.WithAutoOutputMode(answerTool)} {
		m := streamingReporting{agenttest.NewStreamingModel(t, agenttest.Chunks(prose, call)), agent.Modes{Tools: true}}
		ag := agent.New(m, opt, agent.WithOutputRetries(1), agent.WithDegenerateStop(agent.Degenerate{Whitespace: 8}))
		_, res, err := agent.RunTyped[Weather](t.Context(), ag, "w?")
		if err != nil || len(res.Attempts) != 1 || res.Attempts[0].Outcome != enforce.OutcomePassed {
			t.Errorf("rows %+v, %v; want the call's answer passing at once", res.Attempts, err)
		}
	}
}
