package agenttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// ErrScriptExhausted is returned by Generate once every step is used.
var ErrScriptExhausted = errors.New("agenttest: script exhausted")

// Step is one scripted model reply.
type Step struct {
	msg   agent.Message
	usage agent.Usage
	stop  agent.StopReason
	err   error

	// How a [StreamingModel] streams it.
	sizes     []int         // InChunks
	script    []agent.Chunk // Chunks: exactly these chunks
	failAfter int           // FailAfter: chunks before midErr
	midErr    error
}

// Reply answers with text and no tool calls: a final answer, which ends
// with agent.StopComplete unless [Step.WithStop] says otherwise.
func Reply(text string) Step {
	return Step{msg: agent.Message{Role: agent.RoleAssistant, Content: text}, stop: agent.StopComplete}
}

// CallTools answers with tool calls, ending with agent.StopToolUse unless
// [Step.WithStop] says otherwise.
func CallTools(calls ...agent.ToolCall) Step {
	return Step{msg: agent.Message{Role: agent.RoleAssistant, ToolCalls: calls}, stop: agent.StopToolUse}
}

// Call is a tool call with JSON arguments, for CallTools. The ID is left
// for the agent to assign when empty.
func Call(id, name, args string) agent.ToolCall {
	return agent.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// Fail makes the model call return err (a streamed call fails before its
// first chunk).
func Fail(err error) Step { return Step{err: err} }

// WithUsage sets the tokens the step reports, as a provider that counts
// no cached or reasoning tokens does: the usage is not Detailed.
func (s Step) WithUsage(input, output int) Step {
	s.usage = agent.Usage{InputTokens: input, OutputTokens: output}
	return s
}

// WithDetailedUsage sets the tokens the step reports, cached and
// reasoning tokens too (among input and output), as a provider that
// counts them does: the usage is Detailed.
func (s Step) WithDetailedUsage(input, output, cached, reasoning int) Step {
	s.usage = agent.Usage{InputTokens: input, OutputTokens: output, CachedTokens: cached, ReasoningTokens: reasoning, Detailed: true}
	return s
}

// WithStop sets why the step's reply ended (agent.Response.Stop), as an
// adapter would: agent.StopLength for a reply truncated at the output limit,
// agent.StopRefusal or agent.StopContentFilter for a refusal, whose text
// is the step's content. Response.StopRaw is the same word.
func (s Step) WithStop(r agent.StopReason) Step {
	s.stop = r
	return s
}

// WithReasoning sets the thinking the step's provider gives apart from
// its text (agent.Message.Reasoning), as a reasoning model's adapter
// does; a [StreamingModel] streams it before the text, in the step's
// chunk sizes.
func (s Step) WithReasoning(text string) Step {
	s.msg.Reasoning = text
	return s
}

// Model is a scripted agent.Model. It is safe for concurrent use; steps
// are handed out in order of arrival.
type Model struct {
	t        testing.TB
	mu       sync.Mutex
	steps    []Step
	next     int
	requests []agent.Request
	at       string // file:line of the NewModel call, for reports
}

// NewModel returns a model that replies with steps in order. It reports
// an error on t when a request arrives after the last step, and at
// cleanup when steps are left unused. Both reports name the line that
// called NewModel: the cleanup's is reported at it, and a request past
// the script (which arrives through the code under test) says it.
func NewModel(t testing.TB, steps ...Step) *Model {
	t.Helper()
	return newModel(t, steps)
}

// newModel is NewModel for its caller's caller.
func newModel(t testing.TB, steps []Step) *Model {
	t.Helper()
	m := &Model{t: t, steps: steps, at: "?"}
	if _, file, line, ok := runtime.Caller(2); ok {
		m.at = filepath.Base(file) + ":" + strconv.Itoa(line)
	}
	t.Cleanup(func() {
		t.Helper()
		m.mu.Lock()
		defer m.mu.Unlock()
		if left := len(m.steps) - m.next; left > 0 {
			t.Errorf("agenttest: %d of %s left unused", left, plural(len(m.steps), "scripted step"))
		}
	})
	return m
}

// plural is "1 step", "2 steps".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Generate records req and replies with the next step. A step scripted
// as chunks ([Chunks]) is assembled into one reply; one that fails after
// some chunks ([Step.FailAfter]) fails.
func (m *Model) Generate(ctx context.Context, req agent.Request) (agent.Response, error) {
	s, err := m.take(req)
	if err != nil {
		return agent.Response{}, err
	}
	if s.err != nil {
		return agent.Response{Usage: s.usage}, s.err
	}
	if s.midErr != nil {
		return agent.Response{}, s.midErr
	}
	if s.script != nil {
		return assemble(s.script), nil
	}
	return agent.Response{Message: s.msg, Usage: s.usage, Stop: s.stop, StopRaw: string(s.stop)}, nil
}

// take records req and hands out the next step.
func (m *Model) take(req agent.Request) (Step, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, cloneRequest(req))
	if m.next >= len(m.steps) {
		m.t.Helper()
		m.t.Errorf("agenttest: request %d arrived after the script's %s (the model made at %s)",
			len(m.requests), plural(len(m.steps), "step"), m.at)
		return Step{}, fmt.Errorf("%w after %d steps", ErrScriptExhausted, len(m.steps))
	}
	s := m.steps[m.next]
	m.next++
	return s, nil
}

// Requests returns a copy of every request received, in order.
func (m *Model) Requests() []agent.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]agent.Request(nil), m.requests...)
}

// Calls is how many requests arrived.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

func cloneRequest(r agent.Request) agent.Request {
	r.Messages = append([]agent.Message(nil), r.Messages...)
	r.Tools = append([]agent.ToolSpec(nil), r.Tools...)
	return r
}
