package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xeipuuv/gojsonschema"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

const testSession = "0198f0aa-1111-7000-8000-0000000000aa"

// wireSchemas loads the wire contract (the spec's excerpt plus this
// package's additions) and returns, per method, a compiled schema for its
// params and the names of the params' properties.
func wireSchemas(t *testing.T) (map[string]*gojsonschema.Schema, map[string][]string) {
	t.Helper()
	type doc struct {
		Defs          map[string]json.RawMessage `json:"$defs"`
		Notifications map[string]struct {
			Params struct {
				Ref string `json:"$ref"`
			} `json:"params"`
		} `json:"notifications"`
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	defs := map[string]json.RawMessage{}
	methods := map[string]string{}
	extensions := map[string]json.RawMessage{}
	for _, name := range []string{"msp.schema.excerpt.json", "events.schema.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		var d doc
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k, v := range d.Defs {
			defs[k] = v
		}
		for m, n := range d.Notifications {
			methods[m] = strings.TrimPrefix(n.Params.Ref, "#/$defs/")
		}
		for m, ext := range d.Extensions {
			extensions[m] = ext
		}
	}
	schemas, props := map[string]*gojsonschema.Schema{}, map[string][]string{}
	for m, def := range methods {
		all := []any{map[string]string{"$ref": "#/$defs/" + def}}
		if ext, ok := extensions[m]; ok {
			all = append(all, ext)
		}
		root, _ := json.Marshal(map[string]any{"allOf": all, "$defs": defs})
		sl := gojsonschema.NewSchemaLoader()
		sl.Draft, sl.AutoDetect = gojsonschema.Draft7, false
		s, err := sl.Compile(gojsonschema.NewBytesLoader(root))
		if err != nil {
			t.Fatalf("compiling %s: %v", def, err)
		}
		schemas[m] = s
		var d struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		json.Unmarshal(defs[def], &d)
		json.Unmarshal(extensions[m], &d) // adds the extension's members
		for p := range d.Properties {
			props[m] = append(props[m], p)
		}
	}
	return schemas, props
}

func TestEveryFrameMatchesTheWireSchema(t *testing.T) {
	schemas, props := wireSchemas(t)
	_, ns := appendAll(t, transcript())
	seen := map[string]bool{}
	for _, n := range ns {
		frame := frameBytes(t, n)
		var top map[string]json.RawMessage
		if err := json.Unmarshal(frame, &top); err != nil {
			t.Fatal(err)
		}
		if got, want := len(top), 3; got != want || string(top["jsonrpc"]) != `"2.0"` {
			t.Errorf("frame %s: want exactly jsonrpc 2.0, method and params", frame)
		}
		seen[string(n.Method)] = true
		wantWireValid(t, schemas, props, n)
	}
	for m := range schemas {
		if !seen[m] && m != "turn/retracted" {
			t.Errorf("the transcript has no %s frame", m)
		}
	}
}

// wantWireValid fails t unless n's params validate against its method's
// wire schema and carry only members it defines.
func wantWireValid(t *testing.T, schemas map[string]*gojsonschema.Schema, props map[string][]string, n Notification) {
	t.Helper()
	s, ok := schemas[string(n.Method)]
	if !ok {
		t.Fatalf("no schema for method %q", n.Method)
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(n.Params))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors() {
		t.Errorf("%s params %s: %s", n.Method, n.Params, e)
	}
	var params map[string]json.RawMessage
	json.Unmarshal(n.Params, &params)
	for k := range params {
		if !slices.Contains(props[string(n.Method)], k) {
			t.Errorf("%s params carry %q, which the wire schema does not define", n.Method, k)
		}
	}
}

// The ledger frames with every optional member set (kind, member, every
// token count, the repairs) are what the wire schema defines.
func TestLedgerFramesWithEveryOptionalFieldMatchTheWireSchema(t *testing.T) {
	schemas, props := wireSchemas(t)
	_, ns := appendAll(t, []Event{
		SchemaRetry{TurnID: "t1", Attempt: 1, RetriesRemaining: 1, Iteration: 1, Stage: "schema-validate", Error: "amount is required",
			Path: "/refund/amount", CorrectiveMessageHash: "0c1f2e3d", Member: "refund",
			InputTokens: 10, OutputTokens: 5, CachedTokens: 4, ReasoningTokens: 2, Repaired: []string{"fence"}},
		SchemaExhausted{TurnID: "t1", Attempt: 2, Iteration: 2, Stage: "schema-validate", Error: "e", Kind: "choice",
			InputTokens: 10, OutputTokens: 5, CachedTokens: 4, ReasoningTokens: 2, Repaired: []string{"label"}},
	})
	for i, want := range []string{`"member":"refund"`, `"kind":"choice"`} {
		if !bytes.Contains(ns[i].Params, []byte(want)) {
			t.Errorf("%s params %s, want %s", ns[i].Method, ns[i].Params, want)
		}
		wantWireValid(t, schemas, props, ns[i])
	}
}

func TestFramesCiteTheirRecordAndCursorsIncrease(t *testing.T) {
	s, ns := appendAll(t, transcript())
	var prev string
	seq := int64(0)
	for rec, err := range s.log.Records(0) {
		if err != nil {
			t.Fatal(err)
		}
		n := ns[seq]
		seq++
		type recordPosition struct {
			ID       string `json:"id"`
			Sequence int64  `json:"sequence"`
		}
		var p struct {
			SessionID   string `json:"sessionId"`
			TurnID      string `json:"turnId"`
			SourceRange struct {
				Stream      struct{ Kind, ID string }
				First, Last recordPosition
			} `json:"sourceRange"`
		}
		if err := json.Unmarshal(n.Params, &p); err != nil {
			t.Fatal(err)
		}
		want := recordPosition{rec.ID, rec.Sequence}
		if p.SourceRange.First != want || p.SourceRange.Last != want {
			t.Errorf("record %d: sourceRange %+v, want first == last == %+v", seq, p.SourceRange, want)
		}
		if p.SourceRange.Stream.Kind != "session" || p.SourceRange.Stream.ID != testSession || p.SessionID != testSession {
			t.Errorf("record %d: got stream %+v session %q, want session stream %q", seq, p.SourceRange.Stream, p.SessionID, testSession)
		}
		if p.TurnID != rec.Event.turn() {
			t.Errorf("record %d: turnId %q, want %q", seq, p.TurnID, rec.Event.turn())
		}
		c := n.Cursor()
		if c <= prev {
			t.Errorf("cursor %q does not sort after %q", c, prev)
		}
		if pos, err := parseCursor(testSession, c); err != nil || pos != rec.Sequence {
			t.Errorf("parseCursor(%q) = %d, %v; want %d", c, pos, err, rec.Sequence)
		}
		prev = c
	}
	if got, want := seq, int64(len(ns)); got != want {
		t.Errorf("log holds %d records, want %d", got, want)
	}
}

func TestFoldingTheSameRecordsTwiceGivesIdenticalFrames(t *testing.T) {
	s, ns := appendAll(t, transcript())
	i := 0
	for rec, err := range s.log.Records(0) {
		if err != nil {
			t.Fatal(err)
		}
		// Through the log line format too, as a file log would store it.
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		var back Record
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatal(err)
		}
		for _, r := range []Record{rec, back} {
			n, err := r.Notification()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := frameBytes(t, n), frameBytes(t, ns[i]); !bytes.Equal(got, want) {
				t.Errorf("refold of record %d:\n got %s\nwant %s", rec.Sequence, got, want)
			}
		}
		i++
	}
}

func TestGoldenTranscript(t *testing.T) {
	_, ns := appendAll(t, transcript())
	var got bytes.Buffer
	for _, n := range ns {
		got.Write(frameBytes(t, n))
		got.WriteByte('\n')
	}
	golden := filepath.Join("testdata", "transcript.golden.ndjson")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("frames differ from %s (run go test -update and review the diff):\n%s", golden, got.Bytes())
	}
}

func TestAppendRefusesEventsThatBreakTheProducerContract(t *testing.T) {
	ok := TurnRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: time.Second, Reason: "x"}
	tests := []struct {
		name string
		ev   Event
	}{
		{"a nil event", nil},
		{"a turn start without a turn", TurnStarted{}},
		{"a retry of attempt 0", func() Event { e := ok; e.Attempt = 0; return e }()},
		{"a retry whose next attempt is not later", func() Event { e := ok; e.NextAttempt = 1; return e }()},
		{"a retry past the bound", func() Event { e := ok; e.NextAttempt, e.MaxAttempts = 3, 2; return e }()},
		{"a retry with a negative delay", func() Event { e := ok; e.RetryDelay = -time.Millisecond; return e }()},
		{"a retry of an unknown kind", func() Event { e := ok; e.Kind = "model"; return e }()},
		{"a model retry with next == attempt", ModelRetry{TurnID: "t", Attempt: 2, NextAttempt: 2, MaxAttempts: 3}},
		{"a model retry with a negative delay", ModelRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, RetryDelay: -1}},
		{"a model retry with HTTP status 42", ModelRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 3, HTTPStatus: 42}},
		{"a completion with an unknown terminal", TurnCompleted{TurnID: "t", Terminal: "done"}},
		{"a failure without an error", TurnCompleted{TurnID: "t", Terminal: "failed"}},
		{"a success with an error", TurnCompleted{TurnID: "t", Terminal: "completed", Error: &TurnError{Kind: "modelError"}}},
		{"a failure of an unknown kind", TurnCompleted{TurnID: "t", Terminal: "failed", Error: &TurnError{Kind: "oops"}}},
		{"negative usage", TurnCompleted{TurnID: "t", Terminal: "completed", Usage: &Usage{InputTokens: -1}}},
		{"a retried tool call without a hash", ToolCallRejected{TurnID: "t", Call: 1, Iteration: 1, Tool: "lookup", CallID: "c1", Outcome: "retried", Stage: "json-parse", Error: "e"}},
		{"a tool call without its tool", ToolCallRejected{TurnID: "t", Call: 1, Iteration: 1, CallID: "c1", Outcome: "exhausted", Stage: "json-parse", Error: "e"}},
		{"a tool call of no outcome", ToolCallRejected{TurnID: "t", Call: 1, Iteration: 1, Tool: "lookup", CallID: "c1", Outcome: "passed", Stage: "json-parse", Error: "e"}},
		{"a tool call at stage degenerate", ToolCallRejected{TurnID: "t", Call: 1, Iteration: 1, Tool: "lookup", CallID: "c1", Outcome: "exhausted", Stage: "degenerate", Error: "e"}},
		{"a schema retry without a hash", SchemaRetry{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e"}},
		{"a schema retry with negative tokens", SchemaRetry{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "811c9dc5", OutputTokens: -1}},
		{"a schema retry of a kind that is not a name", SchemaRetry{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "811c9dc5", Kind: "Choice!"}},
		{"a schema retry naming no union member's name", SchemaRetry{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "811c9dc5", Member: "a refund"}},
		{"an exhausted answer of a kind that is not a name", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", Kind: "text\n"}},
		{"an exhausted answer naming a member too long", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", Member: strings.Repeat("m", 65)}},
		{"a schema retry with negative retries left", SchemaRetry{TurnID: "t", Attempt: 1, RetriesRemaining: -1, Iteration: 1, Stage: "json-parse", Error: "e", CorrectiveMessageHash: "811c9dc5"}},
		{"an exhausted row of an unknown stage", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "parse", Error: "e"}},
		{"an exhausted row at iteration 0", SchemaExhausted{TurnID: "t", Attempt: 1, Stage: "json-parse", Error: "e"}},
		{"an exhausted row of an unknown reason", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", Reason: "bored"}},
		{"rules without a rule", RulesJudged{TurnID: "t", Attempt: 1, Iteration: 1}},
		{"rules of an attempt without its iteration", RulesJudged{TurnID: "t", Attempt: 1, Rules: []Ruling{{Rule: "r", Verdict: "passed"}}}},
		{"a rule of no name", RulesJudged{TurnID: "t", Rules: []Ruling{{Verdict: "passed"}}}},
		{"a rule of an unknown verdict", RulesJudged{TurnID: "t", Rules: []Ruling{{Rule: "r", Verdict: "maybe"}}}},
		{"a rule that spent negative money", RulesJudged{TurnID: "t", Rules: []Ruling{{Rule: "r", Verdict: "passed", Money: -1}}}},
		{"too many rules", RulesJudged{TurnID: "t", Rules: make([]Ruling, MaxRulings+1)}},
		{"an exhausted row with negative tokens", SchemaExhausted{TurnID: "t", Attempt: 1, Iteration: 1, Stage: "json-parse", Error: "e", OutputTokens: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := appendAll(t, nil)
			_, err := s.Append(tt.ev)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Append = %v, want ErrInvalid", err)
			}
			var e *Error
			if !errors.As(err, &e) || e.Detail == "" {
				t.Errorf("want an *Error saying what was wrong, got %#v", err)
			}
			if got := s.log.Last(); got != 0 {
				t.Errorf("log holds %d records after a refused append, want 0", got)
			}
		})
	}
	t.Run("a retry at the contract's edges is accepted", func(t *testing.T) {
		s, _ := appendAll(t, nil)
		if _, err := s.Append(TurnRetry{TurnID: "t", Attempt: 1, NextAttempt: 2, MaxAttempts: 2}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestNormalizeReason(t *testing.T) {
	long := strings.Repeat("é", 200)
	tests := []struct {
		name, in, want string
	}{
		{"empty text gets the fallback", "", "retry scheduled"},
		{"only white space gets the fallback", " \t\r\n ", "retry scheduled"},
		{"only control characters get the fallback", "\x00\x07\x1b", "retry scheduled"},
		{"white space runs collapse to one space", "provider\n\t  stream   disconnected", "provider stream disconnected"},
		{"the ends are trimmed", "  timeout  ", "timeout"},
		{"control characters are removed", "time\x00out\x1b[31m", "timeout[31m"},
		{"bidi controls are removed", "a\u202eb", "ab"},
		{"invalid UTF-8 is replaced", "bad \xff byte", "bad \uFFFD byte"},
		{"long text is cut to 160 runes on a rune boundary", long, strings.Repeat("é", 160)},
		{"a cut never leaves a trailing space", strings.Repeat("a", 159) + " bcd", strings.Repeat("a", 159)},
		{"a reason with tabs, a NUL and a newline reads as one line", "  upstream\treset\x00 by peer\n", "upstream reset by peer"},
		{"160 runes are kept whole", strings.Repeat("a", 158) + " b", strings.Repeat("a", 158) + " b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := normalizeReason(tt.in)
			if got != tt.want {
				t.Errorf("normalizeReason(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := normalizeReason(got); again != got {
				t.Errorf("normalizeReason is not idempotent: %q then %q", got, again)
			}
		})
	}
}

func FuzzNormalizeReason(f *testing.F) {
	f.Add("  provider\n stream \x00 disconnected ")
	f.Add(strings.Repeat("é ", 100))
	f.Fuzz(func(t *testing.T, in string) {
		got := normalizeReason(in)
		switch n := len([]rune(got)); {
		case n == 0 || n > 160:
			t.Fatalf("%d runes", n)
		case strings.TrimSpace(got) != got || strings.Contains(got, "  "):
			t.Fatalf("not trimmed or collapsed: %q", got)
		case normalizeReason(got) != got:
			t.Fatalf("not idempotent: %q", got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || (r != ' ' && strings.ContainsRune("\t\n\v\f\r\u0085\u00a0\u2028\u2029", r)) {
				t.Fatalf("kept %U in %q", r, got)
			}
		}
	})
}
