package enforce

// Degenerate is the verdict on a streamed answer the caller stopped
// reading because it degenerated (whitespace or a repetition without
// end), for [Answer.Cut]'s Verdict: stage [StageDegenerate], one issue
// at the root with keyword "degenerate" and message, the caller's words
// for what it saw (quoted as data). Its corrective message says the
// answer was stopped for that, not for breaking the contract.
func Degenerate(message string) *CheckError {
	return &CheckError{Stage: StageDegenerate, Issues: []Issue{{Keyword: "degenerate", Message: quote(message)}}}
}
