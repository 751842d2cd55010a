package wiretest

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// ShoppingList is the answer of the elements scenario: a list beside
// another member.
type ShoppingList struct {
	Lines []ShoppingLine `json:"lines"`
	Note  string         `json:"note"`
}

// ShoppingLine is one element of a ShoppingList.
type ShoppingLine struct {
	Item string `json:"item"`
	Qty  int    `json:"qty"`
}

// The elements scenario's two answers: the first one's second line has
// no qty, the second passes.
const (
	ElementsFirst  = `{"lines":[{"item":"tea","qty":2},{"item":"milk"},{"item":"jam","qty":1}],"note":"soon"}`
	ElementsSecond = `{"lines":[{"item":"tea","qty":2},{"item":"milk","qty":1}],"note":"soon"}`
)

// ElementsThroughTheWire checks agent.RunElements over the adapter, in
// the output mode a's model, reply and opts choose: reply(answer) is the
// provider's reply giving answer (its text, or with
// agent.WithOutputTool("final_result") in opts a call of it). The first
// reply gives ElementsFirst: its first line is yielded as it closes, and
// the answer is cut at the second line's closing byte, the row retried
// at /lines/1/qty; the second gives ElementsSecond, announced by a
// Restart before its lines. It returns the server, for the caller to
// check what was sent.
func ElementsThroughTheWire(t *testing.T, a Adapter, reply func(answer string) Reply, opts ...agent.Option) *Server {
	srv := a.Server(t, reply(ElementsFirst), reply(ElementsSecond))
	ag := agent.New(a.Model(t, srv), append([]agent.Option{agent.WithOutputRetries(1)}, opts...)...)
	s := agent.RunElements[ShoppingList, ShoppingLine](context.Background(), ag, "What should I buy?", "/lines")
	var seen []string
	for e := range s.Elements() {
		if e.Restart {
			seen = append(seen, strconv.Itoa(e.Attempt)+" restart")
			continue
		}
		seen = append(seen, strconv.Itoa(e.Attempt)+" "+strconv.Itoa(e.Index)+" "+e.Value.Item)
	}
	list, res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1 0 tea", "2 restart", "2 0 tea", "2 1 milk"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("elements seen = %q, want %q", seen, want)
	}
	if want := (ShoppingList{Lines: []ShoppingLine{{"tea", 2}, {"milk", 1}}, Note: "soon"}); !reflect.DeepEqual(list, want) {
		t.Errorf("Result = %+v, want %+v", list, want)
	}
	if len(res.Attempts) != 2 || res.Attempts[1].Outcome != enforce.OutcomePassed {
		t.Fatalf("rows = %+v, want a retried row, then a pass", res.Attempts)
	}
	row := res.Attempts[0]
	cutAt := strings.Index(ElementsFirst, `"milk"}`) + len(`"milk"}`)
	if row.Outcome != enforce.OutcomeRetried || row.Stage != enforce.StageSchemaValidate || row.Path != "/lines/1/qty" ||
		row.Cut == nil || row.Cut.Bytes != cutAt {
		t.Errorf("first row = %+v, want /lines/1/qty retried, cut after %d bytes", row, cutAt)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
	return srv
}
