package events

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestEventDecodesEveryNotificationWithEveryFieldIntact(t *testing.T) {
	s, ns := appendAll(t, transcript())
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp := get(t, srv.URL, "")
	defer resp.Body.Close()
	i := 0
	for n, err := range ReadSSE(resp.Body) { // as a remote client reads them
		if err != nil {
			t.Fatal(err)
		}
		want, err := transcript()[i].check() // the event as stored
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []Notification{ns[i], n} {
			got, err := n.Event()
			if err != nil {
				t.Fatalf("%s: Event() = %v", n.Method, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Event() = %#v, want %#v", n.Method, got, want)
			}
		}
		if i++; i == len(ns) {
			break
		}
	}
	if i != len(ns) {
		t.Fatalf("read %d notifications, want %d", i, len(ns))
	}
}

func TestEventRefusesUnknownMethodsAndParamsThatDoNotDecode(t *testing.T) {
	tests := []struct {
		name string
		n    Notification
		want error
	}{
		{"a method of a newer server", Notification{JSONRPC: "2.0", Method: "turn/steered", Params: json.RawMessage(`{}`)}, ErrUnknownMethod},
		{"params of the wrong shape", Notification{JSONRPC: "2.0", Method: MethodTurnRetry, Params: json.RawMessage(`{"attempt":"one"}`)}, nil},
		{"params that are not JSON", Notification{JSONRPC: "2.0", Method: MethodTurnCompleted, Params: json.RawMessage(`{`)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := tt.n.Event()
			var e *Error
			if ev != nil || !errors.As(err, &e) || e.Op != "decode" {
				t.Fatalf("Event() = %#v, %v; want nil and an *Error of Op decode", ev, err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Event() = %v, want %v", err, tt.want)
			}
			if tt.want == nil && errors.Is(err, ErrUnknownMethod) {
				t.Errorf("a known method's bad params reported as an unknown method: %v", err)
			}
		})
	}
}

func TestIsTerminalHoldsExactlyForTheNotificationsThatResolveWaitTurn(t *testing.T) {
	_, ns := appendAll(t, transcript())
	for _, n := range ns {
		want := n.Method == MethodTurnCompleted || n.Method == MethodTurnUnqueued
		if got := n.IsTerminal(); got != want {
			t.Errorf("%s: IsTerminal() = %v, want %v", n.Method, got, want)
		}
	}
	if (Notification{Method: "turn/steered"}).IsTerminal() {
		t.Error("an unknown method is terminal")
	}
}

// Durations travel as whole milliseconds; encoding/json keeps them too.
func TestEventsKeepTheirDurationsThroughEncodingJSON(t *testing.T) {
	retry := TurnRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 4 * time.Second, Reason: "r", Kind: RetryCorrective}
	model := ModelRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 1500 * time.Millisecond, ErrorKind: KindRateLimit, HTTPStatus: 429}
	done := TurnCompleted{TurnID: "t", Terminal: TerminalCompleted, Duration: 2 * time.Second, TimeToFirstToken: 300 * time.Millisecond}
	for _, tt := range []struct {
		ev     Event
		member string
		into   any
	}{
		{retry, `"retryDelayMs":4000`, new(TurnRetry)},
		{model, `"retryDelayMs":1500`, new(ModelRetry)},
		{done, `"durationMs":2000,"timeToFirstTokenMs":300`, new(TurnCompleted)},
	} {
		b, err := json.Marshal(tt.ev)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tt.member) {
			t.Errorf("json.Marshal(%T) = %s, want it to hold %s", tt.ev, b, tt.member)
		}
		if err := json.Unmarshal(b, tt.into); err != nil {
			t.Fatal(err)
		}
		if got := reflect.ValueOf(tt.into).Elem().Interface(); !reflect.DeepEqual(got, tt.ev) {
			t.Errorf("json round trip of %T = %#v, want %#v", tt.ev, got, tt.ev)
		}
	}
}

func TestServeHTTPAnswersAClosedStreamWith503(t *testing.T) {
	s, _ := appendAll(t, transcript())
	srv := httptest.NewServer(s)
	defer srv.Close()
	s.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("got %s %q, want 503", resp.Status, body)
	}
}

// fakeTicker is a keep-alive ticker the test ticks.
type fakeTicker struct {
	c       chan time.Time
	every   chan time.Duration
	stopped chan struct{}
}

func newFakeTicker(s *Stream) *fakeTicker {
	f := &fakeTicker{c: make(chan time.Time), every: make(chan time.Duration, 1), stopped: make(chan struct{})}
	s.ticker = func(d time.Duration) (<-chan time.Time, func()) {
		f.every <- d
		return f.c, func() { close(f.stopped) }
	}
	return f
}

func TestServeHTTPKeepsAnIdleClientAliveAtTheConfiguredInterval(t *testing.T) {
	s, err := NewStream(testSession, NewMemoryLog(), WithKeepAlive(7*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tick := newFakeTicker(s)
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp := get(t, srv.URL, "")
	br := bufio.NewReader(resp.Body)
	line := func() string {
		t.Helper()
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if got, want := <-tick.every, 7*time.Second; got != want {
		t.Errorf("keep-alive interval = %v, want %v", got, want)
	}
	if got := line() + line(); got != "retry: 1000\n\n" {
		t.Errorf("the response starts %q, want a retry hint", got)
	}
	for range 2 { // nothing is recorded: only keep-alives arrive
		tick.c <- time.Now()
		if got := line() + line(); got != ": keep-alive\n\n" {
			t.Errorf("after a tick: %q, want a keep-alive comment", got)
		}
	}
	if _, err := s.Append(TurnStarted{TurnID: "t1"}); err != nil {
		t.Fatal(err)
	}
	if got := line(); !strings.HasPrefix(got, "id: ") {
		t.Errorf("after an append: %q, want the event", got)
	}
	resp.Body.Close()
	select {
	case <-tick.stopped:
	case <-time.After(30 * time.Second): // a failure bound, not a sleep
		t.Fatal("the keep-alive ticker was not stopped after the client left")
	}
}

// A reader of the stream sees keep-alives and the retry hint as nothing.
func TestReadSSEIgnoresKeepAlivesAndTheRetryHint(t *testing.T) {
	in := "retry: 1000\n\n: keep-alive\n\n" + "id: 1\nevent: turn/started\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"turn/started\",\"params\":{}}\n\n: keep-alive\n\n"
	var got []Method
	for n, err := range ReadSSE(strings.NewReader(in)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n.Method)
	}
	if len(got) != 1 || got[0] != MethodTurnStarted {
		t.Errorf("ReadSSE yielded %v, want [turn/started]", got)
	}
}

func TestServeHTTPServesTheLivePageToABrowser(t *testing.T) {
	s, _ := appendAll(t, transcript())
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/session", nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8") // a browser's navigation
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("got %s %q, want the page", resp.Status, resp.Header.Get("Content-Type"))
	}
	page := string(body)
	t.Run("it loads nothing from elsewhere", func(t *testing.T) {
		// Its one reference is its icon, inline: without it a browser asks
		// for /favicon.ico, which a stream's handler answers with an event
		// stream that never ends.
		if !strings.Contains(page, `<link rel="icon" href="data:,">`) {
			t.Error("the page has no inline icon")
		}
		rest := strings.Replace(page, `<link rel="icon" href="data:,">`, "", 1)
		if m := regexp.MustCompile(`(?i)(src|href)\s*=|https?://|@import|url\(`).FindString(rest); m != "" {
			t.Errorf("the page refers to another resource: %q", m)
		}
	})
	t.Run("its policy allows exactly its own script and style", func(t *testing.T) {
		csp := resp.Header.Get("Content-Security-Policy")
		for _, tag := range []string{"script", "style"} {
			m := regexp.MustCompile(`(?s)<` + tag + `>(.*?)</` + tag + `>`).FindStringSubmatch(page)
			if m == nil {
				t.Fatalf("no inline %s", tag)
			}
			sum := sha256.Sum256([]byte(m[1]))
			if want := tag + "-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) {
				t.Errorf("policy %q lacks %s", csp, want)
			}
		}
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
			t.Errorf("policy %q is not deny-by-default with connections to this origin", csp)
		}
	})
	t.Run("it renders text from the stream as text", func(t *testing.T) {
		if strings.Contains(page, "innerHTML") || strings.Contains(page, "insertAdjacentHTML") || strings.Contains(page, "document.write") {
			t.Error("the page's script writes markup")
		}
	})
	t.Run("an event-stream request to the same URL gets the stream", func(t *testing.T) {
		req, _ := http.NewRequest("GET", srv.URL+"/session", nil)
		req.Header.Set("Accept", "text/event-stream") // what EventSource sends
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type = %q, want text/event-stream", ct)
		}
	})
}

func TestOnlyABrowserNavigationGetsThePage(t *testing.T) {
	tests := []struct {
		method, accept string
		want           bool
	}{
		{"GET", "text/html,application/xhtml+xml,*/*;q=0.8", true},
		{"HEAD", "text/html", true},
		{"GET", "text/event-stream", false},
		{"GET", "text/event-stream, text/html", false},
		{"GET", "", false},
		{"GET", "*/*", false},
		{"POST", "text/html", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, "/", nil)
		if tt.accept != "" {
			r.Header.Set("Accept", tt.accept)
		}
		if got := wantsPage(r); got != tt.want {
			t.Errorf("%s with Accept %q: page = %v, want %v", tt.method, tt.accept, got, tt.want)
		}
	}
}

// everyField is one event of each type with every field set, so that a
// member Event drops, or decodes into the wrong field, shows.
func everyField() []Event {
	return []Event{
		TurnStarted{TurnID: "t1", CommandID: "c1"},
		TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: 2500 * time.Millisecond, Reason: "stream disconnected", Kind: RetryTurn},
		ModelRetry{TurnID: "t1", Attempt: 2, NextAttempt: 3, MaxAttempts: 4, RetryDelay: 4 * time.Second, ErrorKind: KindRateLimit, HTTPStatus: 429, System: "openai"},
		SchemaRetry{TurnID: "t1", Attempt: 1, RetriesRemaining: 2, Iteration: 3, Stage: "schema-validate", Error: "city is required",
			Path: "/city", CorrectiveMessageHash: "0c1f2e3d", InputTokens: 1830, OutputTokens: 42, CachedTokens: 1024, ReasoningTokens: 7, Repaired: []string{"fence", "coerce"},
			Provider: "openai", Model: "gpt-4o-mini", Kind: "elements", Member: "refund"},
		SchemaExhausted{TurnID: "t1", Attempt: 2, Iteration: 4, Stage: "json-parse", Error: "invalid character", Path: "/days",
			BrokenBy: "redact", Reason: ExhaustRepeated, InputTokens: 1902, OutputTokens: 17, CachedTokens: 1536, ReasoningTokens: 3, Repaired: []string{"prose"},
			Provider: "anthropic", Model: "claude-sonnet-4-5", Kind: "choice", Member: "escalation"},
		ToolCallRejected{TurnID: "t1", Call: 3, Iteration: 5, Tool: "lookup", CallID: "call_3", Outcome: "exhausted", Stage: "schema-validate",
			Error: "city is required", Path: "/city", CorrectiveMessageHash: "0c1f2e3d", Reason: ExhaustRepeated, Repaired: []string{"syntax"},
			Provider: "openai", Model: "gpt-4o-mini"},
		RulesJudged{TurnID: "t1", Attempt: 2, Iteration: 4, Rules: []Ruling{{Rule: "about-paris", Verdict: "failed", Path: "/city",
			Reason: "Lyon is not Paris", Provider: "openai", Model: "gpt-4o-mini", InputTokens: 112, OutputTokens: 14, CachedTokens: 64,
			ReasoningTokens: 2, Money: 0.0000252}}},
		TurnCompleted{TurnID: "t1", Terminal: TerminalFailed, Error: &TurnError{Kind: FailureModelError, Message: "m", Retryable: true},
			Reason: "gave up", Usage: &Usage{InputTokens: 1, OutputTokens: 2, CachedTokens: 3, ReasoningTokens: 4},
			Duration: 48211 * time.Millisecond, TimeToFirstToken: 902 * time.Millisecond},
		TurnUnqueued{TurnID: "t2", CommandID: "c2"},
	}
}

func TestEventKeepsEveryFieldOfEveryEventType(t *testing.T) {
	evs := everyField()
	var zero func(path string, v reflect.Value)
	zero = func(path string, v reflect.Value) {
		if v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			if v.IsZero() {
				t.Errorf("%s is not set: the test would not see it lost", path)
			}
			return
		}
		for i := range v.NumField() {
			zero(path+"."+v.Type().Field(i).Name, v.Field(i))
		}
	}
	seen := map[Method]bool{}
	for _, ev := range evs {
		zero(reflect.TypeOf(ev).Name(), reflect.ValueOf(ev))
		seen[ev.info().method] = true
	}
	for m := range methods {
		if !seen[m] {
			t.Errorf("no %s event: add one with every field set", m)
		}
	}
	s, ns := appendAll(t, evs)
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp := get(t, srv.URL, "")
	defer resp.Body.Close()
	i := 0
	for n, err := range ReadSSE(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []Notification{ns[i], n} { // as appended, and as a remote client reads it
			got, err := n.Event()
			if err != nil {
				t.Fatalf("%s: Event() = %v", n.Method, err)
			}
			if !reflect.DeepEqual(got, evs[i]) {
				t.Errorf("%s: Event() = %#v, want %#v", n.Method, got, evs[i])
			}
		}
		if i++; i == len(evs) {
			break
		}
	}
}

func TestALedgerEventWithARepairThatIsNoNameIsRefused(t *testing.T) {
	for _, bad := range [][]string{{""}, {"Fence"}, {"fence<script>"}, {strings.Repeat("a", 33)}, make([]string, 9)} {
		ev := SchemaRetry{TurnID: "t1", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "0c1f2e3d", Repaired: bad}
		if _, err := ev.check(); !errors.Is(err, ErrInvalid) {
			t.Errorf("repaired %q: check = %v, want ErrInvalid", bad, err)
		}
		ex := SchemaExhausted{TurnID: "t1", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", Repaired: bad}
		if _, err := ex.check(); !errors.Is(err, ErrInvalid) {
			t.Errorf("repaired %q on an exhausted row: check = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestATurnRetryOfKindModelIsRefused(t *testing.T) {
	ev := TurnRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, Reason: "r", Kind: RetryModel}
	if _, err := ev.check(); !errors.Is(err, ErrInvalid) {
		t.Errorf("check = %v, want ErrInvalid: a retried model call is a ModelRetry", err)
	}
}
