package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
	"github.com/enforcer-go/enforcer/fnv"
	"github.com/enforcer-go/enforcer/integrations/eino"
)

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

const (
	fenced = "```json\n{\"city\": \"Paris\", \"tempC\": 21}\n```"
	valid  = `{"city": "Paris", "tempC": 21}`
)

func weatherSchema(t *testing.T) *enforce.Schema {
	t.Helper()
	s, err := enforce.SchemaFor[Weather]()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stillClock stops time for both runs compared, so their rows carry no
// latency and can be compared whole.
var stillClock = agent.WithClock(func() time.Time { return time.Unix(0, 0) })

// ensureCorrected checks the second input the eino model saw: the
// failed answer as an assistant message, then the corrective turn as a
// user message whose hash is the retried row's.
func ensureCorrected(t *testing.T, input []*schema.Message, failed string, row enforce.Attempt) {
	t.Helper()
	n := len(input)
	if n < 2 {
		t.Fatalf("the corrected call's input has %d messages", n)
	}
	if got, want := input[n-2].Role, schema.Assistant; got != want {
		t.Errorf("role before the correction = %q, want %q", got, want)
	}
	if got, want := input[n-2].Content, failed; got != want {
		t.Errorf("the failed answer in the history = %q, want %q", got, want)
	}
	if got, want := input[n-1].Role, schema.User; got != want {
		t.Errorf("the correction's role = %q, want %q", got, want)
	}
	if got, want := fnv.Hex32a(input[n-1].Content), row.CorrectiveMessageHash; got != want {
		t.Errorf("hash of the correction the eino model saw = %s, want the row's %s", got, want)
	}
}

func TestAFailingAnswerIsCorrectedThroughTheEinoModel(t *testing.T) {
	tests := []struct {
		name string
		// model hides GenerateStream when not streamed; own is the
		// agent's own scripted model the rows are compared with.
		model  func(*eino.Model) agent.Model
		own    func(t *testing.T) agent.Model
		failed string // the failed answer as the history keeps it
	}{
		{
			"a generated answer, corrected whole",
			func(m *eino.Model) agent.Model { return agent.ModelFunc(m.Generate) },
			func(t *testing.T) agent.Model {
				return agenttest.NewModel(t, agenttest.Reply(fenced), agenttest.Reply(valid))
			},
			fenced,
		},
		{
			"a streamed answer, cut at its first byte",
			func(m *eino.Model) agent.Model { return m },
			func(t *testing.T) agent.Model {
				return agenttest.NewStreamingModel(t, agenttest.Reply(fenced), agenttest.Reply(valid))
			},
			"`",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newScripted(text(fenced), text(valid))
			a := agent.New(tt.model(eino.NewModel(m)), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), stillClock)
			w, res, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := w, (Weather{City: "Paris", TempC: 21}); got != want {
				t.Errorf("answer = %+v, want %+v", got, want)
			}
			if got, want := len(res.Attempts), 2; got != want {
				t.Fatalf("rows = %d, want %d: %+v", got, want, res.Attempts)
			}
			if got, want := res.Attempts[0].Stage, enforce.StageJSONParse; got != want {
				t.Errorf("first row's stage = %q, want %q", got, want)
			}
			ensureCorrected(t, m.inputs[1], tt.failed, res.Attempts[0])

			own := agent.New(tt.own(t), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), stillClock)
			_, want, err := agent.RunTyped[Weather](t.Context(), own, "Weather in Paris?")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.Attempts, want.Attempts; !reflect.DeepEqual(got, want) {
				t.Errorf("rows through eino = %+v, want the agent's own %+v", got, want)
			}
		})
	}
}

func TestAToolCallMakesARoundTripThroughTheEinoModel(t *testing.T) {
	m := newScripted(
		[]*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "lookup", Arguments: `{"city":"Paris"}`}}})},
		text(valid),
	)
	type In struct {
		City string `json:"city"`
	}
	var asked []string
	lookup := agent.NewTool("lookup", "Current weather of a city.", func(_ context.Context, in In) (string, error) {
		asked = append(asked, in.City)
		return "21C", nil
	})
	a := agent.New(eino.NewModel(m), agent.WithTools(lookup), agent.WithOutputSchema(weatherSchema(t)))
	if _, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?"); err != nil {
		t.Fatal(err)
	}
	if got, want := asked, []string{"Paris"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the tool was asked %q, want %q", got, want)
	}
	if got, want := len(m.tools[0]), 1; got != want {
		t.Fatalf("tools bound = %d, want %d", got, want)
	}
	info := m.tools[0][0]
	if got, want := info.Name, "lookup"; got != want {
		t.Errorf("bound tool = %q, want %q", got, want)
	}
	js, err := info.ParamsOneOf.ToJSONSchema()
	if err != nil || js == nil {
		t.Fatalf("the tool's parameters did not reach eino as JSON Schema: %v", err)
	}
	// agent.NewTool's root "$ref" is inlined, as the adapters send it.
	if got, want := [2]string{js.Type, js.Ref}, [2]string{"object", ""}; got != want {
		t.Errorf("parameters (type, $ref) = %q, want %q", got, want)
	}
	if _, ok := js.Properties.Get("city"); !ok {
		t.Error("the parameters lost their property city")
	}
	last := m.inputs[1][len(m.inputs[1])-1]
	if got, want := *last, (schema.Message{Role: schema.Tool, Content: "21C", ToolCallID: "c1", ToolName: "lookup"}); !reflect.DeepEqual(got, want) {
		t.Errorf("tool message = %+v, want %+v", got, want)
	}
	if got, want := m.inputs[1][len(m.inputs[1])-2].ToolCalls[0].Function.Arguments, `{"city":"Paris"}`; got != want {
		t.Errorf("the call's arguments in the history = %q, want %q", got, want)
	}
}

func TestTheOutputToolIsForcedWithEinosToolChoice(t *testing.T) {
	m := newScripted([]*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "final_answer", Arguments: valid}}})})
	a := agent.New(eino.NewModel(m), agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputTool("final_answer"))
	w, _, err := agent.RunTyped[Weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.City, "Paris"; got != want {
		t.Errorf("city = %q, want %q", got, want)
	}
	if tc := m.opts[0].ToolChoice; tc == nil || *tc != schema.ToolChoiceForced {
		t.Errorf("tool choice = %v, want %q", tc, schema.ToolChoiceForced)
	}
}

func TestTheReplyIsMapped(t *testing.T) {
	tests := []struct {
		name   string
		finish string
		want   agent.StopReason
	}{
		{"OpenAI's stop is complete", "stop", agent.StopComplete},
		{"Anthropic's end_turn is complete", "end_turn", agent.StopComplete},
		{"Gemini's STOP is complete", "STOP", agent.StopComplete},
		{"length is a cut", "length", agent.StopLength},
		{"max_tokens is a cut", "max_tokens", agent.StopLength},
		{"tool_calls is tool use", "tool_calls", agent.StopToolUse},
		{"content_filter is filtered", "content_filter", agent.StopContentFilter},
		{"Gemini's SAFETY is filtered", "SAFETY", agent.StopContentFilter},
		{"refusal is a refusal", "refusal", agent.StopRefusal},
		{"a word with no meaning here is unknown", "sleepy", agent.StopUnknown},
		{"no word is left empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := schema.AssistantMessage("hi", nil)
			msg.ResponseMeta = &schema.ResponseMeta{FinishReason: tt.finish, Usage: &schema.TokenUsage{PromptTokens: 7, CompletionTokens: 3}}
			resp, err := eino.NewModel(newScripted([]*schema.Message{msg})).Generate(t.Context(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			want := agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "hi"}, Usage: agent.Usage{InputTokens: 7, OutputTokens: 3}, Stop: tt.want, StopRaw: tt.finish}
			if got := resp; !reflect.DeepEqual(got, want) {
				t.Errorf("response = %+v, want %+v", got, want)
			}
		})
	}
}

// failing is an eino model whose every call fails with err.
type failing struct {
	model.ToolCallingChatModel
	err error
}

func (f failing) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return nil, f.err
}

func (f failing) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return nil, f.err
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestAFailedCallIsAProviderError(t *testing.T) {
	own := &agent.ProviderError{System: "openai", Kind: events.KindRateLimit, HTTPStatus: 429}
	tests := []struct {
		name string
		err  error
		want *agent.ProviderError
	}{
		{"an opaque error is of kind unknown", errors.New("boom"), &agent.ProviderError{System: eino.System, Kind: events.KindUnknown}},
		{"a timeout is of kind timeout", timeoutErr{}, &agent.ProviderError{System: eino.System, Kind: events.KindTimeout}},
		{"a dial error is of kind connection", &net.OpError{Op: "dial", Err: errors.New("refused")}, &agent.ProviderError{System: eino.System, Kind: events.KindConnection}},
		{"a provider error is kept as it is", own, own},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, streamed := range []bool{false, true} {
				m := eino.NewModel(failing{err: tt.err})
				var m2 agent.Model = m
				if !streamed {
					m2 = agent.ModelFunc(m.Generate) // hides GenerateStream
				}
				_, err := agent.New(m2).Run(t.Context(), "hi")
				if !errors.Is(err, agent.ErrModel) {
					t.Fatalf("streamed=%v: error %v does not match agent.ErrModel", streamed, err)
				}
				var pe *agent.ProviderError
				if !errors.As(err, &pe) {
					t.Fatalf("streamed=%v: error %v is no *agent.ProviderError", streamed, err)
				}
				if got, want := [2]any{pe.System, pe.Kind}, [2]any{tt.want.System, tt.want.Kind}; got != want {
					t.Errorf("streamed=%v: (system, kind) = %v, want %v", streamed, got, want)
				}
				if !errors.Is(err, tt.err) {
					t.Errorf("streamed=%v: error does not unwrap to eino's", streamed)
				}
			}
		})
	}
}

func TestAnUnknownRoleIsRefused(t *testing.T) {
	_, err := eino.NewModel(newScripted()).Generate(t.Context(), agent.Request{Messages: []agent.Message{{Role: "narrator", Content: "x"}}})
	if err == nil {
		t.Error("a message of an unknown role was sent")
	}
}

func TestANilEinoModelIsAnInvalidOption(t *testing.T) {
	_, err := agent.New(eino.NewModel(nil)).Run(t.Context(), "hi")
	if !errors.Is(err, agent.ErrInvalidOption) {
		t.Errorf("error = %v, want agent.ErrInvalidOption", err)
	}
}

func TestToolCallArgumentsAreKeptValidJSON(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{"none become an empty object", "", "{}"},
		{"valid ones are kept", `{"a":1}`, `{"a":1}`},
		{"broken ones become a JSON string", `{"a":`, `"{\"a\":"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newScripted([]*schema.Message{schema.AssistantMessage("", []schema.ToolCall{{Function: schema.FunctionCall{Name: "f", Arguments: tt.args}}})})
			resp, err := eino.NewModel(m).Generate(t.Context(), agent.Request{})
			if err != nil {
				t.Fatal(err)
			}
			c := resp.Message.ToolCalls[0]
			if got, want := [2]string{c.ID, string(c.Arguments)}, [2]string{"call_0", tt.want}; got != want {
				t.Errorf("(id, arguments) = %q, want %q", got, want)
			}
			if !json.Valid(c.Arguments) {
				t.Errorf("arguments %q are not JSON", c.Arguments)
			}
		})
	}
}
