package glue_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/integrations/internal/glue"
)

const cityParams = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`

func TestCallsKeepsEveryRowOfCallsJudgedAtOnce(t *testing.T) {
	calls, err := glue.NewCalls(0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := calls.Compile("lookup", []byte(cityParams))
	if err != nil {
		t.Fatal(err)
	}
	// A framework may run a reply's calls in parallel.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			calls.Judge(s, enforce.Call{Tool: "lookup", Arguments: `{"city":"Oslo"}`})
			calls.Judge(s, enforce.Call{Tool: "lookup", Arguments: `{"city":1}`})
		}()
	}
	wg.Wait()
	rows := calls.Rows()
	if len(rows) != 16 {
		t.Fatalf("%d rows, want 16", len(rows))
	}
	for i, r := range rows {
		if r.Attempt != i+1 {
			t.Errorf("row %d is attempt %d: want them numbered in order", i, r.Attempt)
		}
	}
}

func TestNewCallsRefusesBadBounds(t *testing.T) {
	for _, tt := range []struct {
		repairs        enforce.Repairs
		limit, repeats int
	}{{0, -1, 0}, {0, 0, 1}, {0, enforce.MaxRetries + 2, 0}} {
		if _, err := glue.NewCalls(tt.repairs, tt.limit, tt.repeats); !errors.Is(err, agent.ErrInvalidOption) {
			t.Errorf("NewCalls(%v, %d, %d) = %v, want agent.ErrInvalidOption", tt.repairs, tt.limit, tt.repeats, err)
		}
	}
}

// FuzzCallsJudge holds a framework tool's judge to the agent's rules on
// any arguments: a call that passes as written is given as written, mends
// or not; a failed one is answered with a message and never run; nothing
// ends the run without a limit.
func FuzzCallsJudge(f *testing.F) {
	for _, s := range []string{`{"city":"Oslo"}`, `{"city":1}`, `"{\"city\":\"Oslo\"}"`, "```json\n{'city': 'Oslo',}\n```", ``, `{"city":"Oslo"`} {
		f.Add(s)
	}
	plain, _ := glue.NewCalls(0, 0, 0)
	mending, _ := glue.NewCalls(enforce.AllRepairs, 0, 0)
	ps, err := plain.Compile("lookup", []byte(cityParams))
	if err != nil {
		f.Fatal(err)
	}
	ms, err := mending.Compile("lookup", []byte(cityParams))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		call := enforce.Call{Tool: "lookup", Arguments: args}
		asWritten, msg, err := plain.Judge(ps, call)
		if err != nil {
			t.Fatalf("Judge without a limit ended the run: %v", err)
		}
		if (msg == "") == (asWritten == "") {
			t.Fatalf("Judge(%q) = %q, %q: want arguments or a message", args, asWritten, msg)
		}
		mended, mmsg, err := mending.Judge(ms, call)
		if err != nil {
			t.Fatalf("Judge without a limit ended the run: %v", err)
		}
		if asWritten != "" && (mended != asWritten || mmsg != "") {
			t.Fatalf("Judge(%q): passes as written, but with repairs gives %q", args, mended)
		}
		if mended != "" && ms.Check(mended) != nil {
			t.Fatalf("Judge(%q) gives %q, which breaks the parameters", args, mended)
		}
	})
}
