package langchaingo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/prompts"

	"github.com/enforcer-go/enforcer/agent"
)

// Chain makes an agent.Model of a chain or agent executor that takes one
// text input and returns text: each call runs c once with chains.Run and
// opts, and gives its output as the final answer. A chain with memory is
// given what came after its last answer (the first time, the system
// message and the user's input; after a failed answer, the corrective
// turn), as its memory holds the rest and its prompt shows it (a
// conversation chain, a conversational agent); a chain without memory
// (memory.Simple), or whose prompt does not show it (an executor with
// memory over a one-shot agent), is given the whole conversation, each
// failed answer after "Your previous answer:". Its tools run inside
// langchaingo ([JudgeTool] puts the judge in front of each): the
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
		out, err := chains.Run(ctx, c, chainInput(req.Messages, hasMemory(c) && showsMemory(ctx, c)), opts...)
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

// showsMemory reports whether the prompt c sends reads every variable of
// its memory. An agent executor with memory over a one-shot agent keeps
// the conversation in memory, but the agent's prompt never shows it: such
// a chain is given the whole conversation, as one without memory is. A
// chain whose prompt this cannot see is taken to show its memory.
func showsMemory(ctx context.Context, c chains.Chain) bool {
	p := promptOf(c)
	if p == nil {
		return true
	}
	vars := p.GetInputVariables()
	var partial map[string]any
	switch t := p.(type) {
	case prompts.PromptTemplate:
		partial = t.PartialVariables
	case *prompts.PromptTemplate:
		partial = t.PartialVariables
	}
	for _, v := range c.GetMemory().MemoryVariables(ctx) {
		if _, ok := partial[v]; !ok && !slices.Contains(vars, v) {
			return false
		}
	}
	return true
}

// promptOf is the prompt of a chain or of an executor's agent, nil when
// it is not one of langchaingo's own kinds.
func promptOf(c chains.Chain) prompts.FormatPrompter {
	switch c := c.(type) {
	case *chains.LLMChain:
		return c.Prompt
	case *agents.Executor:
		switch a := c.Agent.(type) {
		case *agents.OneShotZeroAgent:
			return promptOf(a.Chain)
		case *agents.ConversationalAgent:
			return promptOf(a.Chain)
		case *agents.OpenAIFunctionsAgent:
			return a.Prompt
		}
	}
	return nil
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
