package browsertest_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/enforcer-go/enforcer/events"
)

var screenshot = flag.Bool("screenshot", false, "rewrite the guides' screenshots, docs/live-page.png and docs/eval.png")

// session is a stream served over HTTP that records the Last-Event-ID of
// every event-stream request.
type session struct {
	s   *events.Stream
	srv *httptest.Server

	mu      sync.Mutex
	paths   []string // of every request
	lastIDs []string
	replay  bool // the next event-stream request starts over, as if it sent no Last-Event-ID
	gone    bool // event-stream requests with a Last-Event-ID get 410 Gone, as after the log was rewritten
}

func newSession(t *testing.T) *session {
	t.Helper()
	s, err := events.NewStream("session-7f3a", events.NewMemoryLog())
	if err != nil {
		t.Fatal(err)
	}
	x := &session{s: s}
	x.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.mu.Lock()
		x.paths = append(x.paths, r.URL.Path)
		x.mu.Unlock()
		if strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			x.mu.Lock()
			x.lastIDs = append(x.lastIDs, r.Header.Get("Last-Event-ID"))
			if x.replay {
				x.replay = false
				r.Header.Del("Last-Event-ID")
			}
			gone := x.gone && r.Header.Get("Last-Event-ID") != ""
			x.mu.Unlock()
			if gone {
				http.Error(w, "the cursor is from another history of the log", http.StatusGone)
				return
			}
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(x.srv.Close)
	t.Cleanup(func() { s.Close() }) // before srv.Close, which waits for the stream's responses
	return x
}

func (x *session) append(t *testing.T, evs ...events.Event) events.Notification {
	t.Helper()
	var n events.Notification
	for _, ev := range evs {
		var err error
		if n, err = x.s.Append(ev); err != nil {
			t.Fatalf("Append(%#v): %v", ev, err)
		}
	}
	return n
}

// clock replaces the page's performance.now, which its countdown reads,
// with a clock the test sets.
const clock = `window.testClock = 0; performance.now = () => window.testClock;`

// script is what a session records while the page watches: a turn that
// hit a rate limit and a broken answer and then passed, a turn whose
// answer (with markup in it) broke the contract for good, and a turn
// waiting out a provider's rate limit.
func script() (done, live []events.Event, lastRetry events.ModelRetry) {
	lastRetry = events.ModelRetry{TurnID: "turn-3", Attempt: 2, NextAttempt: 3, MaxAttempts: 3,
		RetryDelay: 4 * time.Second, ErrorKind: events.KindRateLimit, HTTPStatus: 429, System: "openai"}
	done = []events.Event{
		events.TurnStarted{TurnID: "turn-1"},
		events.ModelRetry{TurnID: "turn-1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
			RetryDelay: 2 * time.Second, ErrorKind: events.KindOverloaded, HTTPStatus: 529, System: "anthropic"},
		events.TurnRetry{TurnID: "turn-1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, Kind: events.RetryCorrective,
			Reason: "answer broke the output contract at schema-validate /city"},
		events.RulesJudged{TurnID: "turn-1", Rules: []events.Ruling{{Rule: "injection", Verdict: "warned", Reason: `forbidden word "ignore"`}}},
		events.RulesJudged{TurnID: "turn-1", Call: 1, Iteration: 1, Tool: "lookup", CallID: "call_1", Rules: []events.Ruling{
			{Rule: "personal", Verdict: "warned", Reason: "holds an email address at byte 10"}}},
		events.RulesJudged{TurnID: "turn-1", Attempt: 1, Iteration: 1, Rules: []events.Ruling{
			{Rule: "about-paris", Verdict: "failed", Path: "/city", Reason: "the forecast is for Lyon", Provider: "acme", Model: "judge",
				InputTokens: 112, OutputTokens: 14},
			{Rule: "<b>no-pii</b>", Verdict: "passed"}}},
		events.SchemaRetry{TurnID: "turn-1", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate",
			Error: "city is required", Path: "/city", CorrectiveMessageHash: "0c1f2e3d", InputTokens: 1790, OutputTokens: 64},
		events.TurnCompleted{TurnID: "turn-1", Terminal: events.TerminalCompleted, Duration: 6200 * time.Millisecond,
			Usage: &events.Usage{InputTokens: 1840, OutputTokens: 212, CachedTokens: 1024, ReasoningTokens: 0}},
		events.TurnStarted{TurnID: "turn-2"},
		events.SchemaExhausted{TurnID: "turn-2", Attempt: 1, Iteration: 1, Stage: "schema-validate",
			Error: `Does not match pattern '^[a-z]+$': "<script>window.pwned = 1</script>"`, Path: "/reply/answer", BrokenBy: "redact",
			Member: "reply"},
		events.TurnCompleted{TurnID: "turn-2", Terminal: events.TerminalFailed, Reason: `<img src=x onerror="window.pwned = 2">`,
			Error: &events.TurnError{Kind: events.FailureModelError, Message: "output contract broken: <b>answer</b>"}},
	}
	live = []events.Event{
		events.TurnStarted{TurnID: "turn-3"},
		events.ModelRetry{TurnID: "turn-3", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
			RetryDelay: 1 * time.Second, ErrorKind: events.KindTimeout, HTTPStatus: 504, System: "openai"},
		lastRetry,
	}
	return done, live, lastRetry
}

// turnView is what the page shows of one turn.
type turnView struct {
	ID      string     `json:"id"`
	State   string     `json:"state"`
	Now     string     `json:"now"`
	Retries []string   `json:"retries"`
	Rules   []string   `json:"rules"`
	Rows    [][]string `json:"rows"`
	Foot    []string   `json:"foot"`
	Outcome []string   `json:"outcome"`
}

const readTurns = `[...document.querySelectorAll("article.turn")].map(a => ({
	id: a.querySelector("h2 code").textContent,
	state: a.querySelector(".state").textContent,
	now: a.querySelector(".now").textContent,
	retries: [...a.querySelectorAll(".retries li")].map(li => li.textContent),
	rules: [...a.querySelectorAll(".rules li")].map(li => li.textContent),
	rows: [...a.querySelectorAll("tbody tr")].map(tr => [...tr.cells].map(c => c.textContent)),
	foot: [...a.querySelectorAll("tfoot tr")].map(tr => tr.textContent),
	outcome: [...a.querySelectorAll("dl.outcome dd")].map(d => d.textContent),
}))`

func TestTheLivePageInABrowser(t *testing.T) {
	bctx, cancelBrowser := startBrowser(t)
	defer cancelBrowser() // first: it closes the page's connections
	x := newSession(t)
	done, live, lastRetry := script()
	x.append(t, done...)
	retryN := x.append(t, live...)

	if _, err := chromedp.Call(bctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: clock}); err != nil {
		t.Fatal(err)
	}
	// Every step below waits for the page with a bound far above what it
	// needs; the bounds fail a stuck test, they are not sleeps.
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	wait := func(what, predicate string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingInterval(20*time.Millisecond),
			chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			t.Fatalf("waiting until %s: %v", what, err)
		}
	}
	view := func() map[string]turnView {
		t.Helper()
		ts, err := chromedp.Run(ctx, chromedp.Evaluate[[]turnView](readTurns))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]turnView{}
		for _, v := range ts {
			if _, dup := m[v.ID]; dup {
				t.Errorf("turn %s is shown twice", v.ID)
			}
			m[v.ID] = v
		}
		return m
	}

	run("opening the page", chromedp.Navigate(x.srv.URL+"/session"))
	wait("the page is live with three turns", `document.getElementById("conn").textContent === "live" &&
		document.querySelectorAll("article.turn").length === 3 &&
		document.querySelector("article.turn:nth-of-type(3) .now").textContent.startsWith("attempt 2/3")`)

	t.Run("each turn shows its state, retries, attempt rows and outcome", func(t *testing.T) {
		v := view()
		t1 := v["turn-1"]
		if t1.State != "completed" || t1.Now != "turn completed" {
			t.Errorf("turn-1 state %q, line %q; want completed", t1.State, t1.Now)
		}
		wantRetries := []string{
			"model retry · attempt 1/3 · after 2s · provider overloaded · HTTP 529 · anthropic",
			"corrective retry · attempt 1/3 · after 0s · answer broke the output contract at schema-validate /city",
		}
		if !slices.Equal(t1.Retries, wantRetries) {
			t.Errorf("turn-1 retries:\n%q\nwant\n%q", t1.Retries, wantRetries)
		}
		wantRows := [][]string{
			{"1", "retried", "schema-validate", "/city", "0c1f2e3d", "", "in 1790 · out 64", "city is required"},
			{"2", "passed", "", "", "", "", "", ""}, // its tokens are not recorded: unknown, not zero
		}
		if fmt.Sprint(t1.Rows) != fmt.Sprint(wantRows) {
			t.Errorf("turn-1 rows:\n%q\nwant\n%q", t1.Rows, wantRows)
		}
		wantRules := []string{
			`the input · injection · warned: forbidden word "ignore"`,
			"the result of tool lookup · personal · warned: holds an email address at byte 10",
			"answer 1 · about-paris · failed at /city: the forecast is for Lyon · judge in 112 · out 14",
			"answer 1 · <b>no-pii</b> · passed",
		}
		if !slices.Equal(t1.Rules, wantRules) {
			t.Errorf("turn-1 rules:\n%q\nwant\n%q", t1.Rules, wantRules)
		}
		if v := v["turn-2"]; len(v.Rules) != 0 {
			t.Errorf("turn-2, judged by no rule, lists rules %q", v.Rules)
		}
		if len(t1.Foot) != 1 || !strings.Contains(t1.Foot[0], "in 1840 · out 212 · cached 1024 · reasoning 0") {
			t.Errorf("turn-1 tokens %q", t1.Foot)
		}
		t2 := v["turn-2"]
		if t2.State != "failed" || t2.Now != "turn failed · model error" {
			t.Errorf("turn-2 state %q, line %q; want failed · model error", t2.State, t2.Now)
		}
		if len(t2.Rows) != 1 || t2.Rows[0][1] != "exhausted" || t2.Rows[0][2] != "schema-validate member reply" || t2.Rows[0][5] != "redact" ||
			t2.Rows[0][3] != "/reply/answer" || t2.Rows[0][6] != "" {
			t.Errorf("turn-2 rows %q, want one exhausted row of the member reply, broken by redact at /reply/answer, its tokens unknown", t2.Rows)
		}
		if len(t2.Foot) != 0 || slices.ContainsFunc(t2.Outcome, func(s string) bool { return strings.Contains(s, "in 0") }) {
			t.Errorf("turn-2, whose usage is unknown, shows tokens: foot %q, outcome %q", t2.Foot, t2.Outcome)
		}
		t3 := v["turn-3"]
		if t3.State != "retrying" || len(t3.Retries) != 2 || !strings.Contains(t3.Retries[1], "rate limited · HTTP 429 · openai") {
			t.Errorf("turn-3 state %q, retries %q; want retrying, the second rate limited", t3.State, t3.Retries)
		}
	})

	t.Run("text from the stream is shown as text, never run as markup", func(t *testing.T) {
		v := view()["turn-2"]
		if len(v.Rows) != 1 || !strings.Contains(v.Rows[0][7], `"<script>window.pwned = 1</script>"`) {
			t.Errorf("the answer's markup is not shown as text: %q", v.Rows)
		}
		if !slices.Contains(v.Outcome, `<img src=x onerror="window.pwned = 2">`) || !slices.Contains(v.Outcome, "output contract broken: <b>answer</b>") {
			t.Errorf("the reason and message are not shown as text: %q", v.Outcome)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(window.pwned) + " " +
			document.querySelectorAll("main script, main img, main b").length`))
		if err != nil {
			t.Fatal(err)
		}
		if got != "undefined 0" {
			t.Errorf("window.pwned and elements made from stream text: %q, want \"undefined 0\"", got)
		}
	})

	t.Run("the countdown runs locally from the recorded delay, as Describe says it", func(t *testing.T) {
		for _, elapsed := range []time.Duration{0, 1500 * time.Millisecond, 3999 * time.Millisecond, 4 * time.Second} {
			want := retryN.Describe(elapsed)
			run("setting the clock", chromedp.Evaluate[chromedp.Void](fmt.Sprintf("window.testClock = %d", elapsed.Milliseconds())))
			wait(fmt.Sprintf("turn-3 reads %q", want),
				fmt.Sprintf(`document.querySelector("article.turn:nth-of-type(3) .now").textContent === %q`, want))
		}
		if got := retryN.Describe(1500 * time.Millisecond); got != "attempt 2/3 · retrying in 3s · rate limited" {
			t.Errorf("Describe = %q", got) // the line the session stream guide quotes
		}
		run("setting the clock back", chromedp.Evaluate[chromedp.Void]("window.testClock = 0"))
		wait("the countdown restarts", `document.querySelector("article.turn:nth-of-type(3) .now").textContent.includes("retrying in 4s")`)
	})

	t.Run("it has a table a screen reader can navigate and fits 360 px", func(t *testing.T) {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[
			document.querySelectorAll("article.turn:nth-of-type(1) table caption").length,
			document.querySelectorAll("article.turn:nth-of-type(1) thead th[scope=col]").length,
			document.querySelectorAll("article.turn:nth-of-type(1) tbody th[scope=row]").length,
			document.documentElement.lang].join(" ")`))
		if err != nil {
			t.Fatal(err)
		}
		if got != "1 8 2 en" {
			t.Errorf("caption, column headers, row headers, lang = %q, want \"1 8 2 en\"", got)
		}
		run("a 360 px wide screen", chromedp.EmulateViewport(360, 800, chromedp.EmulateMobile))
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if wide > 360 {
			t.Errorf("at 360 px the page is %d px wide: it scrolls sideways", wide)
		}
		run("back to a desktop screen", chromedp.EmulateViewport(900, 600))
	})

	t.Run("a screenshot shows the rate-limited turn", func(t *testing.T) {
		run("setting the clock", chromedp.Evaluate[chromedp.Void]("window.testClock = 0"))
		want := retryN.Describe(0)
		wait("the countdown starts", fmt.Sprintf(`document.querySelector("article.turn:nth-of-type(3) .now").textContent === %q`, want))
		// At the screenshot's width every attempt table fits: nothing in it
		// is hidden behind a sideways scroll.
		cut, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".scroll")].
			filter(e => e.scrollWidth > e.clientWidth).map(e => e.getAttribute("aria-label") + " " + e.scrollWidth + ">" + e.clientWidth)`))
		if err != nil {
			t.Fatal(err)
		}
		if len(cut) > 0 {
			t.Errorf("at 900 px these tables scroll sideways: %q", cut)
		}
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatalf("the screenshot is not a PNG: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 900 {
			t.Errorf("screenshot is %d px wide, want 900", b.Dx())
		}
		// The session stream's guide shows the screenshot this test
		// writes with -screenshot.
		guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "session-stream.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(guide, []byte("](live-page.png)")) {
			t.Error("docs/session-stream.md does not show live-page.png")
		}
		if f, err := os.Open(filepath.Join("..", "..", "docs", "live-page.png")); err != nil {
			t.Error(err)
		} else {
			shown, err := png.DecodeConfig(f)
			f.Close()
			if err != nil || shown.Width != img.Bounds().Dx() {
				t.Errorf("docs/live-page.png: %+v, %v; want a PNG %d px wide, as this test takes it", shown, err, img.Bounds().Dx())
			}
		}
		dst := filepath.Join(t.TempDir(), "live-page.png")
		if *screenshot {
			dst = filepath.Join("..", "..", "docs", "live-page.png")
		}
		if err := os.WriteFile(dst, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot written to %s (with -screenshot: the guide's)", dst)
	})

	t.Run("after a dropped connection it resumes and shows nothing twice", func(t *testing.T) {
		before := view()
		x.mu.Lock()
		opened := len(x.lastIDs)
		x.mu.Unlock()
		x.srv.CloseClientConnections()
		x.append(t, events.TurnCompleted{TurnID: lastRetry.TurnID, Terminal: events.TerminalCompleted})
		x.append(t, events.TurnStarted{TurnID: "turn-4"})
		wait("turn-3 completes and turn-4 appears", `document.querySelectorAll("article.turn").length === 4 &&
			document.querySelector("article.turn:nth-of-type(3) .state").textContent === "completed"`)
		after := view()
		for _, id := range []string{"turn-1", "turn-2"} {
			if fmt.Sprint(after[id]) != fmt.Sprint(before[id]) {
				t.Errorf("%s changed across the reconnect:\n%v\nwas\n%v", id, after[id], before[id])
			}
		}
		if got := after["turn-3"]; !slices.Equal(got.Retries, before["turn-3"].Retries) || got.Now != "turn completed" {
			t.Errorf("turn-3 after the reconnect: %+v", got)
		}
		x.mu.Lock()
		ids := slices.Clone(x.lastIDs)
		x.mu.Unlock()
		if len(ids) <= opened || ids[len(ids)-1] != retryN.Cursor() {
			t.Errorf("event-stream requests sent Last-Event-ID %q; want the last one to resume after %q", ids, retryN.Cursor())
		}
	})

	t.Run("a resumed stream that repeats what the page has seen shows none of it twice", func(t *testing.T) {
		x.append(t, events.ModelRetry{TurnID: "turn-4", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
			RetryDelay: 3 * time.Second, ErrorKind: events.KindOverloaded})
		wait("turn-4 shows its retry", `document.querySelectorAll("article.turn:nth-of-type(4) .retries li").length === 1`)
		before := view()
		x.mu.Lock()
		opened := len(x.lastIDs)
		x.replay = true // the server (a proxy, a restart) sends the whole session again
		x.mu.Unlock()
		x.srv.CloseClientConnections()
		x.append(t, events.SchemaRetry{TurnID: "turn-4", Attempt: 1, RetriesRemaining: 2, Iteration: 2,
			Stage: "json-parse", Error: "invalid character 'O' looking for beginning of value", CorrectiveMessageHash: "9a8b7c6d"})
		wait("turn-4 shows its attempt row", `document.querySelectorAll("article.turn:nth-of-type(4) tbody tr").length >= 1`)
		x.mu.Lock()
		ids := slices.Clone(x.lastIDs[opened:])
		replayed := !x.replay
		x.mu.Unlock()
		if len(ids) == 0 || ids[0] == "" || !replayed {
			t.Fatalf("the page did not reconnect with a Last-Event-ID that the server ignored: %q", ids)
		}
		after := view() // it also fails when a turn is shown twice
		if len(after) != 4 {
			t.Errorf("%d turns shown, want 4", len(after))
		}
		for _, id := range []string{"turn-1", "turn-2", "turn-3"} {
			if fmt.Sprint(after[id]) != fmt.Sprint(before[id]) {
				t.Errorf("%s changed when the stream repeated it:\n%v\nwas\n%v", id, after[id], before[id])
			}
		}
		t4 := after["turn-4"]
		if !slices.Equal(t4.Retries, before["turn-4"].Retries) || len(t4.Rows) != 1 {
			t.Errorf("turn-4 after the repeat: retries %q (were %q), rows %q; want each shown once", t4.Retries, before["turn-4"].Retries, t4.Rows)
		}
	})

	t.Run("a resume the server refuses as stale starts over and shows everything once", func(t *testing.T) {
		before := view()
		x.mu.Lock()
		x.gone = true
		opened := len(x.lastIDs)
		x.mu.Unlock()
		defer func() {
			x.mu.Lock()
			x.gone = false
			x.mu.Unlock()
		}()
		x.srv.CloseClientConnections()
		x.append(t, events.TurnStarted{TurnID: "turn-5"})
		wait("the page starts over and shows turn-5", `document.getElementById("conn").textContent === "live" &&
			document.querySelectorAll("article.turn").length === 5`)
		x.mu.Lock()
		ids := slices.Clone(x.lastIDs[opened:])
		x.mu.Unlock()
		if len(ids) < 2 || ids[0] == "" || ids[len(ids)-1] != "" {
			t.Errorf("event-stream requests sent Last-Event-ID %q; want a refused resume, then a start without one", ids)
		}
		after := view() // it also fails when a turn is shown twice
		for id, was := range before {
			if fmt.Sprint(after[id]) != fmt.Sprint(was) {
				t.Errorf("%s after starting over:\n%v\nwas\n%v", id, after[id], was)
			}
		}
	})

	t.Run("the page asks for nothing but its own URL", func(t *testing.T) {
		// A request for anything else (Chromium asks for /favicon.ico
		// unless the page names its icon) would get an event stream that
		// never ends, and hold a connection open.
		x.mu.Lock()
		paths := slices.Clone(x.paths)
		x.mu.Unlock()
		for _, p := range paths {
			if p != "/session" {
				t.Errorf("the browser asked for %s (all requests: %q)", p, paths)
			}
		}
	})

	t.Run("when the stream closes the page says so", func(t *testing.T) {
		x.s.Close()
		wait("the page says the stream ended", `document.getElementById("conn").textContent === "the stream has ended"`)
	})
}
