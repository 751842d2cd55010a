package enforce

import (
	"strconv"

	"github.com/enforcer-go/enforcer/enforce/internal/corrective"
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
		msg = "the reply is text, not a call to one of the tools " + corrective.QuoteNames(members)
	}
	return &CheckError{Stage: StageJSONParse, Issues: []Issue{{Keyword: issueNoCall, Message: msg}}}
}
