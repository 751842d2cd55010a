package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/enforcer-go/enforcer/enforce"
)

// Tool is a function the model may call. Run receives the arguments the
// model wrote; its result, or its error, goes back to the model as a tool
// message, so the model can react to a failure.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments, shown to the model.
	Parameters json.RawMessage
	Run        func(ctx context.Context, args json.RawMessage) (string, error)

	args *enforce.Schema // set by NewTool: arguments are judged before Run
	err  error           // set by NewTool when In has no schema
}

// NewTool builds a Tool whose arguments decode into In. The parameters
// schema is reflected from In (as enforce.SchemaFor does), and arguments
// that break it are answered with the issues, without calling fn.
func NewTool[In any](name, description string, fn func(ctx context.Context, in In) (string, error)) Tool {
	t := Tool{Name: name, Description: description}
	s, err := enforce.SchemaFor[In]()
	if err != nil {
		t.err = fmt.Errorf("tool %q: %w", name, err)
		return t
	}
	t.args = s
	t.Parameters = s.JSON()
	t.Run = func(ctx context.Context, args json.RawMessage) (string, error) {
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return "", fmt.Errorf("arguments do not decode: %w", err)
		}
		return fn(ctx, in)
	}
	return t
}

func (t Tool) spec() ToolSpec {
	return ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
}

// call runs the tool and turns every failure — bad arguments, an error, a
// panic — into an error whose text goes back to the model.
func (t Tool) call(ctx context.Context, args json.RawMessage) (out string, err error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if t.args != nil {
		if err := t.args.Check(string(args)); err != nil {
			return "", fmt.Errorf("invalid arguments: %w", err)
		}
	} else if !json.Valid(args) {
		return "", fmt.Errorf("invalid arguments: not JSON")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("%w: %v", errToolPanic, r)
		}
	}()
	return t.Run(ctx, args)
}
