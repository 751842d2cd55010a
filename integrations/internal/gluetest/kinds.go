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

// Consume ranges over st's elements and returns what a consumer saw,
// one entry an element ("a1 #0 tea": its attempt, index and item) or a
// restart ("restart").
func Consume(st *agent.ElementStream[Basket, Line]) []string {
	var got []string
	for e := range st.Elements() {
		if e.Restart {
			got = append(got, "restart")
			continue
		}
		got = append(got, fmt.Sprintf("a%d #%d %s", e.Attempt, e.Index, e.Value.Item))
	}
	return got
}

// Rows is each row of res as its outcome, kind and repairs, the rows
// comma-separated: "retried choice, passed choice label".
func Rows(res *agent.Result) string {
	var rows []string
	for _, r := range res.Attempts {
		s := string(r.Outcome) + " " + string(r.Kind)
		if r.Repaired != 0 {
			s += " " + r.Repaired.String()
		}
		rows = append(rows, s)
	}
	return strings.Join(rows, ", ")
}

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
	got := Consume(st)
	last := 0
	for i, e := range got {
		if e == "restart" {
			last = i + 1
		}
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

// NamesTheLabels is what the correction of a near-miss label in
// WantNearMiss says, in our words, before its issue.
const NamesTheLabels = `The labels are: "positive", "negative"`

// WantNearMiss runs agent.RunChoice over m (the labels positive and
// negative, one retry), in prompted output or with the output tool named
// tool, where m's first answer is "Positive." (with the tool,
// {"label": "Positive."}): with repair (enforce.RepairLabel) it is read
// as positive, on the record; without, m's second answer, the exact
// label, follows a corrective turn. The caller checks that turn reached
// its model (it says NamesTheLabels).
func WantNearMiss(t *testing.T, m agent.Model, tool string, repair bool) {
	t.Helper()
	labels, err := enforce.Choice(enforce.Label{Name: "positive", Description: "liked it"}, enforce.Label{Name: "negative", Description: "did not"})
	if err != nil {
		t.Fatal(err)
	}
	opts := []agent.Option{agent.WithOutputSchema(labels), agent.WithOutputRetries(1)}
	if tool != "" {
		opts = append(opts, agent.WithOutputTool(tool))
	}
	want := "retried choice, passed choice"
	if repair {
		opts, want = append(opts, agent.WithRepairs(enforce.RepairLabel)), "passed choice label"
	}
	got, res, err := agent.RunChoice[string](t.Context(), agent.New(m, opts...), "Loved it.")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if got != "positive" {
		t.Errorf("label = %q, want positive", got)
	}
	if rows := Rows(res); rows != want {
		t.Errorf("rows %q, want %q", rows, want)
	}
}

// ChoiceNearMiss is WantNearMiss through the client model makes.
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
	WantNearMiss(t, model(srv.URL), tool, repair)
	if reqs := srv.Requests(); !repair && (len(reqs) != 2 || !strings.Contains(fmt.Sprint(reqs[1]["messages"]), NamesTheLabels)) {
		t.Errorf("the second request does not carry a correction naming the labels: %v", reqs[len(reqs)-1]["messages"])
	}
}

// TextAnswers are what a model scripted for WantTextCut answers: the
// first streams "as an AI" split across two chunks, the second passes.
var TextAnswers = [][]string{{"Well, as an", " AI I think", " it will rain.", " More text."}, {"Rain by noon."}}

// WantTextCut runs agent.RunText over m, which answers as TextAnswers
// begin, with one retry: the first row is a text's, cut at the byte that
// completes the forbidden words, and the corrected answer passes.
func WantTextCut(t *testing.T, m agent.Model) {
	t.Helper()
	rules, err := enforce.Text(enforce.MaxLength(80), enforce.MustNotContain("as an AI"))
	if err != nil {
		t.Fatal(err)
	}
	got, res, err := agent.RunText(t.Context(), agent.New(m, agent.WithOutputSchema(rules), agent.WithOutputRetries(1)), "Weather?")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := TextAnswers[1][0]; got != want {
		t.Errorf("text = %q, want the second answer %q", got, want)
	}
	row := res.Attempts[0]
	if row.Outcome != enforce.OutcomeRetried || row.Kind != enforce.KindText || row.Cut == nil || row.Cut.Bytes != len("Well, as an AI") {
		t.Errorf("first row %+v, want a text row cut at byte %d", row, len("Well, as an AI"))
	}
}

// TextCutByAForbiddenSubstring is WantTextCut through the client model
// makes, the first answer's chunks followed by text without end: the
// client's stream stopped at the forbidden words, or the run would not
// end.
func TextCutByAForbiddenSubstring(t *testing.T, model func(url string) agent.Model) {
	t.Helper()
	var first []string
	for _, c := range TextAnswers[0] {
		first = append(first, Content(c))
	}
	srv := NewServer(t, Reply{Events: first, Endless: Content(" and so on")}, reply("", "", TextAnswers[1]...))
	WantTextCut(t, model(srv.URL))
}

// OutputKinds runs each check above through the client model makes, in
// prompted output and with the output tool, a near-miss label with and
// without the repair. Of elements it asks, too, that the first answer's
// first element was yielded before the restart: as it closed when the
// client streams, or when a client that gives a tool call whole (as
// langchaingo's does) returns it, since the call's arguments are judged
// as they are fed and the first element closes before the one that fails.
func OutputKinds(t *testing.T, model func(url string) agent.Model) {
	for _, tool := range []string{"", "basket"} {
		t.Run("elements, output tool "+strconv.Quote(tool), func(t *testing.T) {
			got := ElementsAfterARetry(t, model, tool)
			if want := "a1 #0 tea, restart, a2 #0 tea, a2 #1 jam"; strings.Join(got, ", ") != want {
				t.Errorf("the consumer saw %q, want %q", got, want)
			}
		})
		for _, repair := range []bool{false, true} {
			t.Run(fmt.Sprintf("a near-miss label, output tool %q, repair %v", tool, repair), func(t *testing.T) {
				ChoiceNearMiss(t, model, tool, repair)
			})
		}
	}
	t.Run("a text cut at a forbidden substring", func(t *testing.T) { TextCutByAForbiddenSubstring(t, model) })
}
