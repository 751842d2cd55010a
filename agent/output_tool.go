package agent

import (
	"encoding/json"
	"slices"
	"strconv"
)

// Tool-call output ([WithOutputTool]): the final answer arrives as the
// arguments of a call to a tool whose parameters are the output schema.

// maxToolName is the longest tool name both OpenAI and Anthropic accept.
const maxToolName = 64

// validToolName reports whether name is 1 to 64 of [a-zA-Z0-9_-], the
// names both OpenAI and Anthropic accept.
func validToolName(name string) bool {
	if name == "" || len(name) > maxToolName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// outputToolPrompt tells the model how to give its final answer, in our
// words; the schema travels as the tool's parameters.
func outputToolPrompt(name string) string {
	return "Give your final answer by calling the tool " + strconv.Quote(name) +
		" with the answer as its arguments: its parameters are the answer's JSON Schema. " +
		"Do not write the final answer as text."
}

// outputToolSpec is the tool the final answer is a call of.
func outputToolSpec(name string, schema json.RawMessage) ToolSpec {
	return ToolSpec{
		Name:        name,
		Description: "Give the final answer: call this tool once, with the answer as its arguments.",
		Parameters:  schema,
	}
}

// outputAnswer finds the final answer in msg when the agent has an output
// tool: the arguments of the reply's first call of it, or, for a reply
// with no tool calls, its text, which fails as no call (st.noCall). ok is
// false when there is no output tool or the reply only calls other tools,
// which run as usual.
func (st *runState) outputAnswer(msg Message) (answer string, ok bool) {
	name := st.outputTool()
	st.noCall = false
	if name == "" || st.schema == nil {
		return "", false
	}
	if st.contract.union != nil {
		return st.unionAnswer(msg)
	}
	if i := slices.IndexFunc(msg.ToolCalls, func(c ToolCall) bool { return c.Name == name }); i >= 0 {
		return string(msg.ToolCalls[i].Arguments), true
	}
	if len(msg.ToolCalls) > 0 {
		return "", false
	}
	st.noCall = true
	return msg.Content, true
}

// answerTool is what [enforce.Answer.Tool] and NoCall say of the answer
// being judged.
func (st *runState) answerTool() (tool string, noCall bool) {
	if st.schema == nil {
		return "", false
	}
	if st.contract.union != nil {
		return st.unionTool(), st.noCall
	}
	return st.outputTool(), st.noCall
}

// correct appends the corrective turn for the failed answer, the last
// message. A reply that called tools gets one tool message per call, in
// order, as providers require before the conversation goes on: the
// output tool's call gets the correction, every other call a note that it
// was not run. A reply in text gets the correction as a user message.
func (st *runState) correct(corrective string) {
	res := st.res
	answer := len(res.Messages) - 1
	calls := res.Messages[answer].ToolCalls
	if len(calls) == 0 {
		res.Messages = append(res.Messages, Message{Role: RoleUser, Content: corrective})
	} else {
		corrected := false
		for _, c := range calls {
			text := notRunBesideAnswer
			if st.isOutputCall(c.Name) && !corrected {
				text, corrected = corrective, true
			}
			res.Messages = append(res.Messages, Message{Role: RoleTool, Content: text, ToolCallID: c.ID})
		}
	}
	st.lastPair = st.lastPair[:0]
	for i := answer; i < len(res.Messages); i++ {
		st.lastPair = append(st.lastPair, i)
	}
}

// notRunBesideAnswer answers a tool call made in the same reply as a
// final answer: the reply ended the loop, so the call was not run.
const notRunBesideAnswer = "not run: this reply also gave the final answer. Call the tool again in a later reply if you still need it."
