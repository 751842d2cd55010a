package gluetest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// The output kinds through a framework's real client, over the scripted
// server: each check runs the kind in prompted output (the answer
// streamed as content) or with the output tool (streamed as a tool
// call's arguments), and asserts what holds whatever the client.

// CallDelta is a stream chunk of a tool call: its first fragment (with
// id and name) when id is set, else a later fragment of call 0's
// arguments.
func CallDelta(id, name, args string) string {
	head := ""
	if id != "" {
		head = `"id":` + strconv.Quote(id) + `,"type":"function",`
	}
	fn := `"arguments":` + strconv.Quote(args)
	if name != "" {
		fn = `"name":` + strconv.Quote(name) + `,` + fn
	}
	return Delta(`{"tool_calls":[{"index":0,`+head+`"function":{`+fn+`}}]}`, "")
}

// reply streams pieces as content, or as the arguments of a call of
// tool when tool is not "".
func reply(tool, id string, pieces ...string) Reply {
	var evs []string
	for i, p := range pieces {
		switch {
		case tool == "":
			evs = append(evs, Content(p))
		case i == 0:
			evs = append(evs, CallDelta(id, tool, p))
		default:
			evs = append(evs, CallDelta("", "", p))
		}
	}
	finish := "stop"
	if tool != "" {
		finish = "tool_calls"
	}
	return Reply{Events: append(evs, Delta(`{}`, finish))}
}

// Line and Basket are the answer of ElementsAfterARetry.
type (
	Line struct {
		Item string `json:"item"`
		Qty  int    `json:"qty" jsonschema:"minimum=1"`
	}
	Basket struct {
		Lines []Line `json:"lines"`
	}
)

// ElementsAfterARetry runs agent.RunElements over /lines, in prompted
// output or with the output tool named tool: the first answer's second
// element fails (/lines/1/qty), the second answer passes. It asserts
// the rows (an elements row failing there, then a pass) and that the
// elements since the last restart are the passing answer's, and returns
// what the consumer saw, one entry an element ("a1 #0 tea") or a
// restart ("restart"), for the caller to hold its client to.
func ElementsAfterARetry(t *testing.T, model func(url string) agent.Model, tool string) []string {
	t.Helper()
	srv := NewServer(t,
		reply(tool, "c1", `{"lines":[{"item":"tea","qty":1},`, `{"item":"jam","qty":0},`, `{"item":"oats","qty":2}]}`),
		reply(tool, "c2", `{"lines":[{"item":"tea","qty":1},`, `{"item":"jam","qty":1}]}`))
	s, err := enforce.SchemaFor[Basket]()
	if err != nil {
		t.Fatal(err)
	}
	opts := []agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(1)}
	if tool != "" {
		opts = append(opts, agent.WithOutputTool(tool))
	}
	st := agent.RunElements[Basket, Line](t.Context(), agent.New(model(srv.URL), opts...), "Shopping?", "/lines")
	var got []string
	last := 0
	for e := range st.Elements() {
		if e.Restart {
			got = append(got, "restart")
			last = len(got)
			continue
		}
		got = append(got, fmt.Sprintf("a%d #%d %s", e.Attempt, e.Index, e.Value.Item))
	}
	b, res, err := st.Result()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(b.Lines) != 2 {
		t.Errorf("answer %+v, want the passing one's two lines", b)
	}
	if len(res.Attempts) != 2 || res.Attempts[0].Path != "/lines/1/qty" || res.Attempts[0].Kind != enforce.KindElements ||
		res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Errorf("rows = %+v, want an elements row failing at /lines/1/qty, then a pass", res.Attempts)
	}
	if tail, want := strings.Join(got[last:], ", "), "a2 #0 tea, a2 #1 jam"; tail != want {
		t.Errorf("the consumer saw %q: after the last restart %q, want %q", got, tail, want)
	}
	return got
}

// ChoiceNearMiss runs agent.RunChoice where the first answer is
// "Positive.", in prompted output or with the output tool named tool
// (the answer {"label": "Positive."}): with repair (enforce.RepairLabel)
// it is read as positive, on the record; without, a corrective turn that
// names the labels gets the exact label.
func ChoiceNearMiss(t *testing.T, model func(url string) agent.Model, tool string, repair bool) {
	t.Helper()
	answer := func(label string) string {
		if tool == "" {
			return label
		}
		return `{"label":` + strconv.Quote(label) + `}`
	}
	replies := []Reply{reply(tool, "c1", answer("Positive."))}
	if !repair {
		replies = append(replies, reply(tool, "c2", answer("positive")))
	}
	srv := NewServer(t, replies...)
	labels, err := enforce.Choice(enforce.Label{Name: "positive", Description: "liked it"}, enforce.Label{Name: "negative", Description: "did not"})
	if err != nil {
		t.Fatal(err)
	}
	opts := []agent.Option{agent.WithOutputSchema(labels), agent.WithOutputRetries(1)}
	if tool != "" {
		opts = append(opts, agent.WithOutputTool(tool))
	}
	if repair {
		opts = append(opts, agent.WithRepairs(enforce.RepairLabel))
	}
	got, res, err := agent.RunChoice[string](t.Context(), agent.New(model(srv.URL), opts...), "Loved it.")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if got != "positive" {
		t.Errorf("label = %q, want positive", got)
	}
	var rows []string
	for _, r := range res.Attempts {
		s := string(r.Outcome) + " " + string(r.Kind)
		if r.Repaired != 0 {
			s += " " + r.Repaired.String()
		}
		rows = append(rows, s)
	}
	want := "passed choice label"
	if !repair {
		want = "retried choice, passed choice"
		reqs := srv.Requests()
		if len(reqs) != 2 || !strings.Contains(fmt.Sprint(reqs[1]["messages"]), `The labels are: "positive", "negative"`) {
			t.Errorf("the second request does not carry a correction naming the labels: %v", reqs[len(reqs)-1]["messages"])
		}
	}
	if strings.Join(rows, ", ") != want {
		t.Errorf("rows %q, want %q", rows, want)
	}
}

// TextCutByAForbiddenSubstring runs agent.RunText where the first
// answer streams "as an AI" split across two chunks and then text
// without end: the row is cut at the byte that completes the forbidden
// words (the client's stream stopped there, or the run would not end),
// and the corrected answer passes.
func TextCutByAForbiddenSubstring(t *testing.T, model func(url string) agent.Model) {
	t.Helper()
	first := Reply{Events: []string{Content("Well, as an"), Content(" AI I think")}, Endless: Content(" and so on")}
	srv := NewServer(t, first, reply("", "", "Rain by noon."))
	rules, err := enforce.Text(enforce.MaxLength(80), enforce.MustNotContain("as an AI"))
	if err != nil {
		t.Fatal(err)
	}
	got, res, err := agent.RunText(t.Context(), agent.New(model(srv.URL), agent.WithOutputSchema(rules), agent.WithOutputRetries(1)), "Weather?")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if got != "Rain by noon." {
		t.Errorf("text = %q, want the second answer", got)
	}
	row := res.Attempts[0]
	if row.Outcome != enforce.OutcomeRetried || row.Kind != enforce.KindText || row.Cut == nil || row.Cut.Bytes != len("Well, as an AI") {
		t.Errorf("first row %+v, want a text row cut at byte %d", row, len("Well, as an AI"))
	}
}
