package langchaingo

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/memory"

	"github.com/enforcer-go/enforcer/agent"
)

// Chain makes an agent.Model of a chain or agent executor that takes one
// text input and returns text: each call runs c once with chains.Run and
// opts, and gives its output as the final answer. A chain with memory is
// given what came after its last answer (the first time, the system
// message and the user's input; after a failed answer, the corrective
// turn), as its memory holds the rest; a chain without memory
// (memory.Simple) is given the whole conversation, each failed answer
// after "Your previous answer:". Its tools run inside langchaingo: the
// agent.Agent must offer none, or the call fails with
// agent.ErrInvalidOption. A failed run is mapped as [Model.Generate] maps
// a failed call, and unwraps to the chain's error. A chain reports no
// usage.
func Chain(c chains.Chain, opts ...chains.ChainCallOption) agent.Model {
	return agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		if c == nil {
			return agent.Response{}, fmt.Errorf("%w: langchaingo: Chain(nil)", agent.ErrInvalidOption)
		}
		if len(req.Tools) > 0 {
			return agent.Response{}, fmt.Errorf("%w: langchaingo: Chain runs its own tools; the agent offers %d of its own (WithTools or WithOutputTool), which the chain cannot run", agent.ErrInvalidOption, len(req.Tools))
		}
		out, err := chains.Run(ctx, c, chainInput(req.Messages, hasMemory(c)), opts...)
		if err != nil {
			return agent.Response{}, failure(ctx, err)
		}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: out}}, nil
	})
}

func hasMemory(c chains.Chain) bool {
	switch c.GetMemory().(type) {
	case nil, memory.Simple, *memory.Simple:
		return false
	}
	return true
}

// previousAnswer introduces a failed answer in the input of a chain
// without memory, which has not seen it.
const previousAnswer = "Your previous answer:\n"

// chainInput is the text the chain is run with (see Chain).
func chainInput(msgs []agent.Message, remembers bool) string {
	if remembers {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == agent.RoleAssistant {
				msgs = msgs[i+1:]
				break
			}
		}
	}
	parts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case agent.RoleAssistant:
			parts = append(parts, previousAnswer+m.Content)
		default:
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n\n")
}
