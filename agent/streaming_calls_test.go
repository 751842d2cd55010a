package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// tripParams is the parameters schema of the tool the streamed-call tests
// call.
const tripParams = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1},
"tags":{"type":"array","items":{"type":"string"}}},"required":["city"],"additionalProperties":false}`

// tripTool is a plain Tool with tripParams; ran counts its runs.
func tripTool(ran *int) agent.Tool {
	return agent.Tool{Name: "trip", Description: "plans a trip", Parameters: json.RawMessage(tripParams),
		Run: func(context.Context, json.RawMessage) (string, error) { *ran++; return "planned", nil }}
}

// wholeCall is the verdict CallLedger gives the call's whole arguments.
func wholeCall(t testing.TB, repairs enforce.Repairs, args string) enforce.CallVerdict {
	t.Helper()
	s, err := enforce.CompileSchema([]byte(tripParams))
	if err != nil {
		t.Fatal(err)
	}
	l, _ := enforce.NewCallLedger(0, 0)
	return l.Judge(s.WithRepairs(repairs), enforce.Call{Tool: "trip", ID: "c1", Arguments: args})
}

// among reports whether the row's stage, pointer and error are one issue
// of the whole call's verdict, as an early verdict's are (semantics 13).
func among(row enforce.Attempt, whole *enforce.CheckError) bool {
	if whole == nil || row.Stage != whole.Stage {
		return false
	}
	for _, is := range whole.Issues {
		if is.Path == row.Path && is.Message == row.Error {
			return true
		}
	}
	return false
}

func TestEarlyAbortOfAToolCall(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		read  string // the arguments up to the byte that dooms them
		stage enforce.Stage
		path  string
	}{
		{"prose is cut at its first byte", "Sure, Paris", "S", enforce.StageJSONParse, ""},
		{"a wrong type is cut at the value's first byte", `{"city":true,"days":2}`, `{"city":t`, enforce.StageSchemaValidate, "/city"},
		{"an unknown member is cut when its name closes", `{"town":"Paris","city":"Paris"}`, `{"town"`, enforce.StageSchemaValidate, "/town"},
		{"a number below its minimum is cut where it ends", `{"city":"Paris","days":0}`, `{"city":"Paris","days":0}`, enforce.StageSchemaValidate, "/days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := 0
			m := agenttest.NewStreamingModel(t,
				agenttest.CallTools(agenttest.Call("c1", "trip", tt.args)).InChunks(1),
				agenttest.Reply("planned"))
			res, err := agent.New(m, agent.WithTools(tripTool(&ran))).Run(t.Context(), "Plan a trip")
			if err != nil {
				t.Fatal(err)
			}
			row := res.Calls[0]
			if row.Cut == nil || row.Cut.Bytes != len(tt.read) || row.Stage != tt.stage || row.Path != tt.path ||
				row.Outcome != enforce.OutcomeRetried {
				t.Fatalf("row %+v (cut %+v), want it retried, cut after %d bytes at %s %q", row, row.Cut, len(tt.read), tt.stage, tt.path)
			}
			if whole := wholeCall(t, 0, tt.args); !among(row, whole.Err) {
				t.Errorf("row %+v, want one of the whole call's issues %v", row, whole.Err)
			}
			if got := string(res.Messages[1].ToolCalls[0].Arguments); got != tt.read {
				t.Errorf("the conversation keeps %q, want the arguments read, %q", got, tt.read)
			}
			if tm := res.Messages[2].Content; !strings.Contains(tm, "stopped reading the arguments after their first") {
				t.Errorf("the tool message is %q, want it to say the arguments were stopped", tm)
			}
			if c := m.Consumed()[0]; !c.Stopped || !c.Cancelled {
				t.Errorf("consumed %+v, want the stream stopped at the cut and its call cancelled", c)
			}
			if ran != 0 {
				t.Error("the cut call ran")
			}
		})
	}
}

func TestEarlyAbortLeavesAToolCallWhole(t *testing.T) {
	doomed := `{"city":true}`
	begin := func(i int, id, args string) agent.Chunk {
		return agent.Chunk{Call: &agent.CallDelta{Index: i, ID: id, Name: "trip", Arguments: args}}
	}
	more := func(i int, args string) agent.Chunk {
		return agent.Chunk{Call: &agent.CallDelta{Index: i, Arguments: args}}
	}
	tests := []struct {
		name  string
		opts  []agent.Option
		first agenttest.Step
		runs  int // the tool's runs
	}{
		{"when opted out", []agent.Option{agent.WithEarlyAbort(false)},
			agenttest.CallTools(agenttest.Call("c1", "trip", doomed)).InChunks(1), 0},
		{"after a call that may run", nil,
			agenttest.CallTools(agenttest.Call("c0", "trip", `{"city":"Paris"}`), agenttest.Call("c1", "trip", doomed)).InChunks(1), 1},
		{"once a second call has begun", nil,
			agenttest.Chunks(begin(0, "c1", `{"city":`), begin(1, "c2", `{"city":"Paris"}`), more(0, `true}`)), 1},
		{"in a reply that said why it ended", nil,
			agenttest.Chunks(begin(0, "c1", `{"city":`), agent.Chunk{Call: &agent.CallDelta{Index: 0, Arguments: `true}`}, Stop: agent.StopToolUse}), 0},
		{"a call of no tool", nil,
			agenttest.CallTools(agenttest.Call("c1", "nope", "Sure")).InChunks(1), 0},
		{"a string a repair reads as the object it holds", []agent.Option{agent.WithRepairs(enforce.AllRepairs)},
			agenttest.CallTools(agenttest.Call("c1", "trip", ` "{\"city\":\"Paris\"}"`)).InChunks(1), 1},
		{"a fence the repairs take off", []agent.Option{agent.WithRepairs(enforce.AllRepairs)},
			agenttest.CallTools(agenttest.Call("c1", "trip", "```json\n{\"city\":\"Paris\"}\n```")).InChunks(1), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := 0
			m := agenttest.NewStreamingModel(t, tt.first, agenttest.Reply("planned"))
			res, err := agent.New(m, append([]agent.Option{agent.WithTools(tripTool(&ran))}, tt.opts...)...).Run(t.Context(), "Plan a trip")
			if err != nil {
				t.Fatal(err)
			}
			if c := m.Consumed()[0]; c.Stopped || c.Chunks != c.TotalChunks {
				t.Errorf("consumed %+v, want all of it", c)
			}
			for _, r := range res.Calls {
				if r.Cut != nil {
					t.Errorf("row %+v is cut", r)
				}
			}
			if ran != tt.runs {
				t.Errorf("the tool ran %d times, want %d", ran, tt.runs)
			}
		})
	}
}

// FuzzStreamedToolCall streams a call's arguments in chunks of a random
// size, with or without repairs, and holds the call's row to the whole
// call's verdict: a call is cut exactly where the incremental judge of its
// tool's parameters, fed byte by byte, dooms it (never a string the coerce
// repair may read as an object), with the early verdict, which is one of
// the issues CallLedger gives the whole arguments when they parse; a call
// not cut has the row CallLedger gives them.
func FuzzStreamedToolCall(f *testing.F) {
	for _, a := range []string{`{"city":"Paris"}`, `{"city":true}`, `{"city":"Paris","days":0}`, "Sure", "",
		"```json\n{\"city\":\"Paris\"}\n```", `"{\"city\":\"Paris\"}"`, `{'city': 'Paris', 'days': '2'}`, `{"city":"Paris",}`,
		`{"tags":["a",1],"city":"x"}`, `{"city":"Pa` + "\xff"} {
		f.Add(a, uint8(3), false)
		f.Add(a, uint8(1), true)
	}
	s, err := enforce.CompileSchema([]byte(tripParams))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string, size uint8, repairs bool) {
		if len(args) > 4096 {
			return
		}
		var rs enforce.Repairs
		if repairs {
			rs = enforce.AllRepairs
		}
		ran := 0
		m := agenttest.NewStreamingModel(t, agenttest.CallTools(agenttest.Call("c1", "trip", args)).InChunks(int(size%32)+1),
			agenttest.Reply("planned"))
		res, err := agent.New(m, agent.WithTools(tripTool(&ran)), agent.WithRepairs(rs)).Run(t.Context(), "Plan a trip")
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		row, whole := res.Calls[0], wholeCall(t, rs, args)
		want, at := byteVerdict(s.WithRepairs(rs), args)
		if repairs && strings.HasPrefix(strings.TrimLeft(args, " \t\r\n"), `"`) {
			want = nil // a string coerce may read: judged whole
		}
		if row.Cut == nil {
			if want != nil {
				t.Fatalf("the judge dooms %q at byte %d (%v), but it was not cut", args, at, want)
			}
			w := whole.Row
			if row.Outcome != w.Outcome || row.Stage != w.Stage || row.Path != w.Path || row.Error != w.Error ||
				row.Repaired != w.Repaired || row.CorrectiveMessageHash != w.CorrectiveMessageHash {
				t.Fatalf("row %+v, want the whole call's %+v", row, whole.Row)
			}
			return
		}
		if want == nil || row.Cut.Bytes != at || string(res.Messages[1].ToolCalls[0].Arguments) != args[:at] {
			t.Fatalf("cut after %d bytes; the judge dooms %q at %d (%v)", row.Cut.Bytes, args, at, want)
		}
		// The early verdict's promise (see enforce.Incremental): at
		// json-parse, the whole call's very error; at schema-validate, one
		// of its issues whenever the whole call parses.
		sound := among(row, whole.Err) || row.Stage == enforce.StageSchemaValidate && whole.Err != nil && whole.Err.Stage == enforce.StageJSONParse
		if row.Path != want.Path() || row.Error != want.Issues[0].Message || !sound || ran != 0 {
			t.Fatalf("row %+v, want the early verdict %v, one of the whole call's issues %v", row, want, whole.Err)
		}
	})
}
