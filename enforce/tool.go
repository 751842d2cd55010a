package enforce

import (
	"strconv"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// issueNoCall is the keyword of the issue a reply gets that answered in
// text when its answer had to arrive as a tool call ([Answer.NoCall]).
const issueNoCall = "tool"

// noCall is the failure of a reply that made no call to its answer tool
// ([Answer.NoCall]), or, for a [Union] (members), to any member's tool:
// it fails at json-parse, since no JSON value arrived where the answer
// belongs.
func noCall(a Answer, members []string) *CheckError {
	msg := "the reply is text, not a call to the tool " + strconv.Quote(jsonvalue.Clip(a.Tool, maxIssueQuote))
	if members != nil {
		msg = "the reply is text, not a call to one of the tools " + quoteNames(members)
	}
	return &CheckError{Stage: StageJSONParse, Issues: []Issue{{Keyword: issueNoCall, Message: msg}}}
}

// replyOnlyJSON is the instruction that ends a corrective message; for an
// answer that arrives as a tool call, toolCorrective asks for the call.
const replyOnlyJSON = "Reply with only the corrected JSON value, nothing else."

// toolCorrective is msg for an answer that must arrive as a call to tool
// ([Answer.Tool]): the instruction (reply, the message's own) asks for
// that call instead of a reply of only JSON. Without a tool msg is
// returned as it is. For a [Union]'s answer (members) in tool mode (a
// tool, or noCall), it asks for a call of one member's tool, and says
// where its pointers are in the arguments.
func toolCorrective(msg, reply, tool string, members []string, noCall bool) string {
	if members != nil && (tool != "" || noCall) {
		return strings.Replace(msg, reply,
			"Call one of the tools "+quoteNames(members)+", the one whose answer you give, with the corrected JSON value as its arguments, and nothing else: "+
				"an issue at \"#/<tool>/…\" is at \"#/…\" in that tool's arguments.", 1)
	}
	if tool == "" {
		return msg
	}
	return strings.Replace(msg, reply,
		"Call the tool "+strconv.Quote(jsonvalue.Clip(tool, maxIssueQuote))+" with the corrected JSON value as its arguments, and nothing else.", 1)
}
