package agent_test

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// byteStream is a model that streams each canned reply byte by byte and
// counts the bytes it was asked for. A real program streams from an LLM
// (the provider adapters implement agent.StreamingModel); tests use
// agenttest.NewStreamingModel.
type byteStream struct {
	mu      sync.Mutex
	replies []string
	sent    []int
}

func (m *byteStream) Generate(context.Context, agent.Request) (agent.Response, error) {
	panic("a model that streams is streamed")
}

func (m *byteStream) GenerateStream(ctx context.Context, _ agent.Request) iter.Seq2[agent.Chunk, error] {
	m.mu.Lock()
	reply := m.replies[0]
	m.replies = m.replies[1:]
	m.sent = append(m.sent, 0)
	n := &m.sent[len(m.sent)-1]
	m.mu.Unlock()
	return func(yield func(agent.Chunk, error) bool) {
		for i := range len(reply) {
			if ctx.Err() != nil {
				yield(agent.Chunk{}, ctx.Err())
				return
			}
			*n++
			if !yield(agent.Chunk{Text: reply[i : i+1]}, nil) {
				return // the loop stopped reading: stop writing
			}
		}
		yield(agent.Chunk{Stop: agent.StopComplete}, nil)
	}
}

// A model that starts its answer with prose has lost at its first byte:
// the loop stops reading there, and the corrective turn goes out at once.
func ExampleWithEarlyAbort() {
	m := &byteStream{replies: []string{
		`Sure! Here is the weather: {"city":"Paris","tempC":21}`,
		`{"city":"Paris","tempC":21}`,
	}}
	a := agent.New(m, agent.WithOutputRetries(2)) // on by default; WithEarlyAbort(false) turns it off
	w, res, err := agent.RunTyped[Weather](context.Background(), a, "Weather in Paris?")
	if err != nil {
		fmt.Println(err)
		return
	}
	first := res.Attempts[0]
	fmt.Printf("attempt 1: %s at %s, cut after %d byte(s)\n", first.Outcome, first.Stage, first.Cut.Bytes)
	fmt.Printf("the model sent %d of %d bytes\n", m.sent[0], len(`Sure! Here is the weather: {"city":"Paris","tempC":21}`))
	fmt.Printf("the conversation keeps %q\n", res.Messages[2].Content)
	fmt.Printf("attempt 2: %s: %+v\n", res.Attempts[1].Outcome, w)
	// Output:
	// attempt 1: retried at json-parse, cut after 1 byte(s)
	// the model sent 1 of 54 bytes
	// the conversation keeps "S"
	// attempt 2: passed: {City:Paris TempC:21}
}

// Watch a typed answer form as the model streams it: each Partial holds
// the value so far and the pointers of the members already whole and
// valid.
func ExampleRunTypedStream() {
	m := &byteStream{replies: []string{`{"city":"Paris","tempC":21}`}}
	s := agent.RunTypedStream[Weather](context.Background(), agent.New(m), "Weather in Paris?")
	var shown Weather
	settled := 0
	for p := range s.Partials() {
		if p.Value != shown || len(p.Settled) != settled {
			shown, settled = p.Value, len(p.Settled)
			fmt.Printf("%+v settled %q\n", shown, p.Settled)
		}
	}
	w, res, err := s.Result()
	fmt.Printf("%+v %d %v\n", w, len(res.Messages), err)
	// Output:
	// {City:P TempC:0} settled []
	// {City:Pa TempC:0} settled []
	// {City:Par TempC:0} settled []
	// {City:Pari TempC:0} settled []
	// {City:Paris TempC:0} settled []
	// {City:Paris TempC:0} settled ["/city"]
	// {City:Paris TempC:21} settled ["/city" "/tempC"]
	// {City:Paris TempC:21} 3 <nil>
}

// A streamed reply put together as the loop puts it together: text and
// argument fragments in order, a call's ID and name as first given, the
// last usage counts and stop.
func ExampleReplyBuilder() {
	var b agent.ReplyBuilder
	for _, c := range []agent.Chunk{
		{Text: "Looking "},
		{Text: "it up.", Call: &agent.CallDelta{Index: 0, ID: "call_1", Name: "lookup", Arguments: `{"city":`}},
		{Call: &agent.CallDelta{Index: 0, Arguments: `"Paris"}`}, Usage: agent.Usage{InputTokens: 12}},
		{Stop: agent.StopToolUse, Usage: agent.Usage{OutputTokens: 7}},
	} {
		if err := b.Add(c); err != nil {
			fmt.Println(err)
		}
	}
	r := b.Response()
	fmt.Printf("%q %s %s %s %d/%d %s\n", r.Message.Content, r.Message.ToolCalls[0].ID, r.Message.ToolCalls[0].Name,
		r.Message.ToolCalls[0].Arguments, r.Usage.InputTokens, r.Usage.OutputTokens, r.Stop)
	fmt.Println(b.Add(agent.Chunk{Call: &agent.CallDelta{Index: 5}}) != nil)
	// Output:
	// "Looking it up." call_1 lookup {"city":"Paris"} 12/7 tool_use
	// true
}

func TestARejectedChunkAddsNothing(t *testing.T) {
	var b agent.ReplyBuilder
	if err := b.Add(agent.Chunk{Text: "hello", Call: &agent.CallDelta{Index: 3}, Stop: agent.StopLength, Usage: agent.Usage{OutputTokens: 7}}); err == nil {
		t.Fatal("a call continued before it began was added")
	}
	if r := b.Response(); r.Message.Content != "" || r.Stop != "" || r.Usage.OutputTokens != 0 {
		t.Errorf("after a rejected chunk the reply is %+v, want nothing of it", r)
	}
}
