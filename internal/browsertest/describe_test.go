package browsertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/enforcer-go/enforcer/events"
)

// everyLine is one event of each kind and variant the page renders a line
// for, each the only event of its turn.
func everyLine() []events.Event {
	var evs []events.Event
	add := func(ev events.Event) { evs = append(evs, ev) }
	id := func() string { return fmt.Sprintf("d-%02d", len(evs)+1) }
	add(events.TurnStarted{TurnID: id()})
	add(events.TurnUnqueued{TurnID: id()})
	for _, k := range []events.RetryKind{events.RetryCorrective, events.RetryTurn, ""} {
		add(events.TurnRetry{TurnID: id(), Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 1500 * time.Millisecond,
			Reason: "provider stream disconnected", Kind: k})
	}
	add(events.TurnRetry{TurnID: id(), Attempt: 2, NextAttempt: 3, MaxAttempts: 3}) // no delay, no reason
	for _, k := range []events.ErrorKind{events.KindRateLimit, events.KindOverloaded, events.KindServerError, events.KindTimeout,
		events.KindConnection, events.KindBadRequest, events.KindAuth, events.KindUnknown, "quota_exceeded", "",
		"constructor", "__proto__"} { // a newer producer's kinds, and names a JavaScript object has of its own
		add(events.ModelRetry{TurnID: id(), Attempt: 1, NextAttempt: 2, MaxAttempts: 4, RetryDelay: 4 * time.Second, ErrorKind: k})
	}
	for _, left := range []int{0, 1, 3} {
		add(events.SchemaRetry{TurnID: id(), Attempt: 1, RetriesRemaining: left, Iteration: 1, Stage: "json-parse",
			Error: "invalid character", CorrectiveMessageHash: "0c1f2e3d"})
	}
	add(events.SchemaExhausted{TurnID: id(), Attempt: 2, Iteration: 2, Stage: "schema-validate", Error: "e", BrokenBy: "redact"})
	for _, r := range []events.ExhaustReason{"", events.ExhaustRepeated, events.ExhaustBeyondRepair, events.ExhaustValidatorFailed, events.ExhaustBudget} {
		add(events.SchemaExhausted{TurnID: id(), Attempt: 2, Iteration: 2, Stage: "schema-validate", Error: "e", Reason: r})
	}
	for _, k := range []string{"choice", "multi-label", "text", "elements", "table"} { // the last a newer producer's
		add(events.SchemaRetry{TurnID: id(), Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate",
			Error: "e", CorrectiveMessageHash: "0c1f2e3d", Kind: k})
		add(events.SchemaExhausted{TurnID: id(), Attempt: 2, Iteration: 2, Stage: "degenerate", Error: "e", Kind: k})
	}
	add(events.SchemaRetry{TurnID: id(), Attempt: 1, RetriesRemaining: 2, Iteration: 1, Stage: "schema-validate",
		Error: "e", CorrectiveMessageHash: "0c1f2e3d", Member: "refund"})
	add(events.SchemaExhausted{TurnID: id(), Attempt: 2, Iteration: 2, Stage: "schema-validate", Error: "e", Member: "escalation", Reason: events.ExhaustRepeated})
	for _, k := range []string{"constructor", "valueof"} { // a name a JavaScript object has of its own, and a near one
		add(events.SchemaExhausted{TurnID: id(), Attempt: 1, Iteration: 1, Stage: "schema-validate", Error: "e", Kind: k})
	}
	add(events.RulesJudged{TurnID: id(), Rules: []events.Ruling{{Rule: "injection", Verdict: "tripped"}}})
	var rules []events.Ruling
	for i, v := range []string{"passed", "failed", "tripped", "fixed", "warned"} {
		rules = append(rules, events.Ruling{Rule: []string{"about-paris", "no pii", "a.b:c/d_e", "<b>x</b>", strings.Repeat("r", 65)}[i], Verdict: v})
		add(events.RulesJudged{TurnID: id(), Attempt: 2, Iteration: 3, Rules: rules})
	}
	add(events.TurnCompleted{TurnID: id(), Terminal: events.TerminalCompleted})
	add(events.TurnCompleted{TurnID: id(), Terminal: events.TerminalCancelled})
	for _, k := range []events.FailureKind{events.FailureStepLimit, events.FailureConfigError, events.FailureProjectionError,
		events.FailureLogError, events.FailureWorkflowLaunchError, events.FailureEnvironmentError, events.FailureModelError,
		events.FailureLaunchError, events.FailureAuthRequired} {
		add(events.TurnCompleted{TurnID: id(), Terminal: events.TerminalFailed, Error: &events.TurnError{Kind: k, Message: "m"}})
	}
	return evs
}

// The page renders each turn's line itself, in JavaScript; it must say
// what Notification.Describe says for every kind of notification.
func TestTheLivePageSaysWhatDescribeSays(t *testing.T) {
	bctx, cancelBrowser := startBrowser(t)
	defer cancelBrowser()
	x := newSession(t)
	evs := everyLine()
	var ns []events.Notification
	for _, ev := range evs {
		ns = append(ns, x.append(t, ev))
	}
	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: clock}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute) // a failure bound, not a sleep
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(x.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	for _, elapsed := range []time.Duration{0, 2500 * time.Millisecond} {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("window.testClock = %d", elapsed.Milliseconds()))); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range ns {
			want = append(want, n.Describe(elapsed))
		}
		// Wait for every line (the countdown is redrawn within 250 ms), then
		// compare: a failure shows each line that differs.
		js := fmt.Sprintf(`JSON.stringify([...document.querySelectorAll("article.turn .now")].map(e => e.textContent)) === %q`, jsonList(want))
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(20*time.Millisecond),
			chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("article.turn .now")].map(e => e.textContent)`))
			for i, w := range want {
				if i >= len(got) || got[i] != w {
					g := "(missing)"
					if i < len(got) {
						g = got[i]
					}
					t.Errorf("%v after %s: the page says %q, Describe %q", evs[i], elapsed, g, w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d turns shown, want %d", len(got), len(want))
			}
			t.FailNow()
		}
	}

	// Each retry is listed under the kind it is: the wire's retryKind, or
	// a model retry by its method.
	kinds, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("article.turn")].map(a =>
		[...a.querySelectorAll(".retries .kind")].map(k => k.textContent).join(","))`))
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range evs {
		want := ""
		switch ev := ev.(type) {
		case events.TurnRetry:
			want = map[events.RetryKind]string{events.RetryCorrective: "corrective retry", events.RetryTurn: "whole-turn retry", "": "turn retry"}[ev.Kind]
		case events.ModelRetry:
			want = "model retry"
		}
		got := "(no turn)"
		if i < len(kinds) {
			got = kinds[i]
		}
		if got != want {
			t.Errorf("%v is listed as %q, want %q", ev, got, want)
		}
	}
}

// jsonList is JSON.stringify of a list of strings.
func jsonList(ss []string) string {
	b, _ := json.Marshal(ss)
	return string(b)
}
