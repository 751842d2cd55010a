package glue

import (
	"fmt"
	"sync"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// Calls judges the calls of the tools a framework runs inside itself,
// each against its tool's parameters, before the tool runs, and keeps
// their rows as the agent keeps Result.Calls (an enforce.CallLedger). It
// is safe for concurrent use: a framework may run a reply's calls in
// parallel.
type Calls struct {
	repairs enforce.Repairs
	mu      sync.Mutex
	ledger  *enforce.CallLedger
}

// NewCalls returns a ledger mending arguments with repairs (0: none),
// ending a run at the limit-th failed call of one tool in a row and at
// the repeats-th failing the same way (0: off), as agent.WithRepairs,
// WithToolCallLimit and WithRepeatLimit do.
func NewCalls(repairs enforce.Repairs, limit, repeats int) (*Calls, error) {
	l, err := enforce.NewCallLedger(limit, repeats)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.ErrInvalidOption, err)
	}
	return &Calls{repairs: repairs, ledger: l}, nil
}

// Compile compiles a tool's parameters schema as the agent compiles a
// tool's: nil or empty parameters take any JSON value; a schema enforce
// refuses is an error matching agent.ErrInvalidOption that names the
// tool and carries the *enforce.SchemaError (the keyword, its location).
func (c *Calls) Compile(tool string, parameters []byte) (*enforce.Schema, error) {
	if len(parameters) == 0 || string(parameters) == "null" {
		parameters = []byte(`{}`)
	}
	s, err := enforce.CompileSchema(parameters)
	if err != nil {
		return nil, fmt.Errorf("%w: tool %q: parameters: %w", agent.ErrInvalidOption, tool, err)
	}
	if c.repairs != 0 {
		s = s.WithRepairs(c.repairs)
	}
	return s, nil
}

// Judge judges one call of the tool whose parameters are s. It returns
// the arguments to run the tool with when the call passed; the tool
// message that answers a failed call, for the framework to give the
// model as the tool's output; or, when the call's row is exhausted, a
// *agent.ToolCallError that ends the framework's run.
func (c *Calls) Judge(s *enforce.Schema, call enforce.Call) (args, message string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.ledger.Judge(s, call)
	switch {
	case v.Err == nil:
		return v.Arguments, "", nil
	case v.Row.Outcome == enforce.OutcomeExhausted:
		return "", "", &agent.ToolCallError{Tool: call.Tool, CallID: call.ID, Stage: v.Err.Stage,
			Issues: v.Err.Issues, Reason: v.Row.Reason, Calls: c.ledger.Calls()}
	}
	return "", v.Message, nil
}

// Rows returns the calls' rows so far, in order, as Result.Calls holds
// an agent's: nil when no tool was called.
func (c *Calls) Rows() []enforce.Attempt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ledger.Calls()
}
