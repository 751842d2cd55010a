package enforce_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// malformedCall is one record of testdata/toolcalls/malformed.jsonl: a
// tool call's arguments in a form a public thread shows (ours, modelled
// on it), and what a person reads in them.
type malformedCall struct {
	Form      string          `json:"form"`
	Thread    string          `json:"thread"` // owner/repo#number
	Tool      string          `json:"tool"`
	Schema    json.RawMessage `json:"schema"` // the tool's parameters
	Arguments string          `json:"arguments"`
	// Reading is the value a person reads in the arguments; Refuse, that
	// no reading is sure (cut off, two readings, a guess); Valid, that
	// they keep the parameters as written.
	Reading json.RawMessage `json:"reading"`
	Refuse  bool            `json:"refuse"`
	Valid   bool            `json:"valid"`
}

func readMalformedCalls(t *testing.T) []malformedCall {
	t.Helper()
	f, err := os.Open("testdata/toolcalls/malformed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []malformedCall
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r malformedCall
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", len(recs)+1, err)
		}
		if r.Thread == "" || (len(r.Reading) > 0) == (r.Refuse || r.Valid) || r.Refuse && r.Valid {
			t.Fatalf("line %d: want a thread, and exactly one of reading, refuse, valid", len(recs)+1)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// decodeExact decodes JSON keeping numbers as written.
func decodeExact(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	return v
}

// malformedFigures are what TestArgumentRepairsOnMalformedCalls found on
// the corpus; docs/ledger.md quotes them.
type malformedFigures struct{ readable, mended, refuse, refused, valid int }

// TestArgumentRepairsOnMalformedCalls holds the argument repairs
// (enforce.AllRepairs, through a CallLedger) to the malformed corpus,
// record by record: every malformed record fails as written; a mended
// one decodes to exactly the reading a person gives it, never another;
// one whose reading is not sure is refused; a valid one is given to the
// tool byte for byte. The share mended is the figure docs/ledger.md
// gives.
func TestArgumentRepairsOnMalformedCalls(t *testing.T) {
	var got malformedFigures
	for _, r := range readMalformedCalls(t) {
		s, err := enforce.CompileSchema(r.Schema)
		if err != nil {
			t.Fatalf("%s (%s): %v", r.Form, r.Thread, err)
		}
		plain, _ := enforce.NewCallLedger(0, 0)
		as := plain.Judge(s, enforce.Call{Tool: r.Tool, Arguments: r.Arguments})
		mend, _ := enforce.NewCallLedger(0, 0)
		v := mend.Judge(s.WithRepairs(enforce.AllRepairs), enforce.Call{Tool: r.Tool, Arguments: r.Arguments})
		switch {
		case r.Valid:
			got.valid++
			want := r.Arguments
			if want == "" {
				want = "{}" // no arguments
			}
			if as.Err != nil || v.Err != nil || v.Arguments != want || v.Row.Repaired != 0 {
				t.Errorf("%s (%s): a valid call was not given as written: %q, repaired %s, %v", r.Form, r.Thread, v.Arguments, v.Row.Repaired, v.Err)
			}
		case as.Err == nil:
			t.Errorf("%s (%s): passes as written: not a malformed call", r.Form, r.Thread)
		case r.Refuse:
			got.refuse++
			if v.Err == nil {
				t.Errorf("%s (%s): mended into %s, want it refused: no reading is sure", r.Form, r.Thread, v.Arguments)
				continue
			}
			got.refused++
		default:
			got.readable++
			if v.Err != nil {
				t.Logf("not mended: %s (%s): %s", r.Form, r.Thread, v.Err.Issues[0].Message)
				continue
			}
			same := reflect.DeepEqual(decodeExact(t, []byte(v.Arguments)), decodeExact(t, r.Reading))
			if !same {
				t.Errorf("%s (%s): mended into %s, want what a person reads, %s", r.Form, r.Thread, v.Arguments, r.Reading)
				continue
			}
			got.mended++
		}
	}
	line := fmt.Sprintf("%d of the %d malformed calls a person can read are mended to exactly that reading, %d of %d unsure ones are refused, and %d valid calls are given as written",
		got.mended, got.readable, got.refused, got.refuse, got.valid)
	t.Log(line)
	if doc := readDoc(t, "../docs/ledger.md"); !strings.Contains(doc, line) {
		t.Errorf("docs/ledger.md does not say what the corpus shows:\n%s", line)
	}
}

// readDoc is a guide's text with its lines joined by spaces, so that a
// sentence it quotes matches however it is wrapped.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// bfclFigures are what TestArgumentJudgingOnBFCL found; docs/ledger.md
// quotes them.
type bfclFigures struct {
	schemas, refused                     int // JSONSchemaBench's BFCL function schemas, and those enforce refuses
	valid, validPassed                   int // their labelled valid arguments, and those passing as written
	calls, passed, mended, failing, kept int // BFCL completions, passing as written, mended, failing still, passing ones given byte for byte
}

// TestArgumentJudgingOnBFCL judges real function-calling data as tool
// calls: JSONSchemaBench's BFCL function schemas as parameters, their
// labelled valid documents as arguments, and the 2,436 BFCL completions
// of the real model outputs corpus as arguments against the function
// schema each was asked for. Arguments that pass as written are given
// to the tool byte for byte with every repair on; the counts are the
// figures docs/ledger.md gives.
func TestArgumentJudgingOnBFCL(t *testing.T) {
	var f bfclFigures
	judge := func(s *enforce.Schema, args string) (asWritten, mended enforce.CallVerdict) {
		l, _ := enforce.NewCallLedger(0, 0)
		return l.Judge(s, enforce.Call{Tool: "f", Arguments: args}), l.Judge(s.WithRepairs(enforce.AllRepairs), enforce.Call{Tool: "f", Arguments: args})
	}
	for _, bf := range corpus.Bench(t, func(c string) bool { return c == "BFCL" }) {
		f.schemas++
		s, err := enforce.CompileSchema(bf.Schema)
		if err != nil {
			f.refused++
			continue
		}
		for _, c := range bf.Tests {
			if !c.Valid {
				continue
			}
			f.valid++
			as, m := judge(s, string(c.Data))
			if as.Err != nil {
				t.Logf("%s: %s: a valid document fails as written: %v", bf.Name, c.Description, as.Err)
				continue
			}
			f.validPassed++
			if m.Err != nil || m.Arguments != string(c.Data) || m.Row.Repaired != 0 {
				t.Errorf("%s: %s: passes as written but the repairs change it (%s)", bf.Name, c.Description, m.Row.Repaired)
			}
		}
	}
	schemas := map[string]*enforce.Schema{}
	for _, r := range corpus.ModelOutputs(t) {
		if !strings.Contains(r.Source, "berkeley-gorilla") {
			continue
		}
		f.calls++
		s, ok := schemas[string(r.Schema)]
		if !ok {
			var err error
			if s, err = enforce.CompileSchema(r.Schema); err != nil {
				t.Fatalf("%s: %v", r.Source, err)
			}
			schemas[string(r.Schema)] = s
		}
		as, m := judge(s, r.Output)
		switch {
		case as.Err == nil:
			f.passed++
			if m.Err == nil && m.Arguments == r.Output && m.Row.Repaired == 0 {
				f.kept++
			} else {
				t.Errorf("%s: passes as written but the repairs change it (%s)", r.Source, m.Row.Repaired)
			}
		case m.Err == nil:
			f.mended++
		default:
			f.failing++
		}
	}
	line := fmt.Sprintf("%s of JSONSchemaBench's %s BFCL function schemas compile as parameters, and %s of their %s valid documents pass as written; "+
		"of the %s BFCL completions, %s pass as written (all %s given byte for byte with every repair on), %s more are mended, and %s still fail",
		n(f.schemas-f.refused), n(f.schemas), n(f.validPassed), n(f.valid), n(f.calls), n(f.passed), n(f.kept), n(f.mended), n(f.failing))
	t.Log(line)
	if doc := readDoc(t, "../docs/ledger.md"); !strings.Contains(doc, line) {
		t.Errorf("docs/ledger.md does not say what the corpora show:\n%s", line)
	}
}

// n writes a count as the guides do, thousands apart: 2,436.
func n(c int) string {
	s := strconv.Itoa(c)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
