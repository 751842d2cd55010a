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
// ([Answer.NoCall]): it fails at json-parse, since no JSON value arrived
// where the answer belongs.
func noCall(a Answer) *CheckError {
	return &CheckError{Stage: StageJSONParse, Issues: []Issue{{
		Keyword: issueNoCall,
		Message: "the reply is text, not a call to the tool " + strconv.Quote(jsonvalue.Clip(a.Tool, maxIssueQuote)),
	}}}
}

// replyOnlyJSON is the instruction that ends a corrective message; for an
// answer that arrives as a tool call, toolCorrective asks for the call.
const replyOnlyJSON = "Reply with only the corrected JSON value, nothing else."

// toolCorrective is msg for an answer that must arrive as a call to tool
// ([Answer.Tool]): the instruction (reply) asks for that call instead of
// a reply of only JSON. Without a tool msg is returned as it is.
func toolCorrective(msg, reply, tool string) string {
	if tool == "" {
		return msg
	}
	return strings.Replace(msg, reply,
		"Call the tool "+strconv.Quote(jsonvalue.Clip(tool, maxIssueQuote))+" with the corrected JSON value as its arguments, and nothing else.", 1)
}
