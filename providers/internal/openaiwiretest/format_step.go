package openaiwiretest

import (
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/native"
)

// A reasoning server answers freely, without response_format; a second
// model of the same adapter formats the answer natively. Both requests
// and both models' usage are on the record.
func (h Harness) testFormatStepThroughTheWire(t *testing.T) {
	prose := "It is 18 degrees in Paris."
	reasoner := newFakeServer(t, okReply(reasoned("reasoning_content", "Paris in June.", &prose, "stop")))
	answer := paris
	formatter := newFakeServer(t, okReply(reasoned("reasoning_content", "", &answer, "stop")))
	a := agent.New(h.New(reasoner.URL, "deepseek-reasoner", WithoutStreaming(), WithNativeSchema(native.VLLM)),
		agent.WithOutputRetries(1),
		agent.WithFormatStep(h.New(formatter.URL, "qwen3-4b", WithoutStreaming(), WithNativeSchema(native.VLLM))))
	w, res, err := agent.RunTyped[weather](t.Context(), a, "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if w != (weather{City: "Paris", TempC: 18}) {
		t.Errorf("answer = %+v", w)
	}
	free, keys := DecodeRequest(t, reasoner.Requests()[0])
	if keys["response_format"] != nil || keys["tools"] != nil {
		t.Errorf("the free step sent response_format %s, tools %s; want neither", keys["response_format"], keys["tools"])
	}
	if got := free.roles(); !slices.Equal(got, []string{"user"}) {
		t.Errorf("the free step's roles %v, want the user's input alone", got)
	}
	format, keys := DecodeRequest(t, formatter.Requests()[0])
	if keys["response_format"] == nil {
		t.Error("the format step sent no response_format")
	}
	if got := format.roles(); !slices.Equal(got, []string{"system", "user"}) {
		t.Errorf("the format step's roles %v, want system, user", got)
	}
	if !strings.Contains(string(formatter.Requests()[0]), prose) {
		t.Error("the format step's request does not quote the free answer")
	}
	var names []string
	for _, m := range res.Models {
		names = append(names, m.Model)
	}
	if !slices.Equal(names, []string{"deepseek-reasoner", "qwen3-4b"}) || !res.Models[1].Format || res.Usage.InputTokens != 20 {
		t.Errorf("Models %+v, Usage %+v; want both models, the formatter's marked, 20 input tokens", res.Models, res.Usage)
	}
}
