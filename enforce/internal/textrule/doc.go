// Package textrule is the machinery of enforce's text contracts
// (enforce.Text): the rules a plain-text answer is held to, compiled
// into a [Set] that says which rules a text breaks and the rules in
// words for a prompt, and a [Stream] that finds, as a text arrives, the
// byte that breaks a rule no longer text can keep (a maximum, a
// forbidden substring). It knows nothing of stages, issues or the
// ledger: enforce judges and writes those.
package textrule
