package wiretest

import (
	"context"
	"slices"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

// AgentJudgesToolCalls checks that a call of the weather tool whose
// arguments break its parameters (bad, the call's wire ID badID, giving
// city a number) never reaches the tool: the next request answers badID
// with the corrective tool message the call's row hashes; the model's
// next call (good, ID goodID, city "Paris") runs, and the run passes on
// answer. Result.Calls has both rows, in order.
func AgentJudgesToolCalls(t *testing.T, a Adapter, bad Reply, badID string, good Reply, goodID string, answer Reply) {
	t.Run("a tool call breaking its parameters is answered, not run, and on the record", func(t *testing.T) {
		srv := a.Server(t, bad, good, answer)
		var cities []string
		tool := agent.NewTool("weather", "Current weather for a city.", func(_ context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			cities = append(cities, in.City)
			return "18°C", nil
		})
		w, res, err := agent.RunTyped[Weather](context.Background(), agent.New(a.Model(t, srv), agent.WithTools(tool)), "Weather in Paris?")
		if err != nil {
			t.Fatal(err)
		}
		if w != paris {
			t.Errorf("answer = %+v, want %+v", w, paris)
		}
		if want := []string{"Paris"}; !slices.Equal(cities, want) {
			t.Errorf("the tool ran for %q, want only the call that keeps its parameters, %q", cities, want)
		}
		if got, want := outcomes(res.Calls), []enforce.Outcome{enforce.OutcomeRetried, enforce.OutcomePassed}; !slices.Equal(got, want) {
			t.Fatalf("call rows' outcomes = %v, want %v (rows %+v)", got, want, res.Calls)
		}
		first, second := res.Calls[0], res.Calls[1]
		if first.Kind != enforce.KindToolCall || first.Tool != "weather" || first.CallID != badID ||
			first.Stage != enforce.StageSchemaValidate || first.Path != "/city" || first.CorrectiveMessageHash == "" {
			t.Errorf("first call row = %+v, want weather's %s failing at schema-validate at /city, its message hashed", first, badID)
		}
		if first.Provider == "" || first.Model == "" {
			t.Errorf("first call row names provider %q, model %q; want the adapter's", first.Provider, first.Model)
		}
		if second.Tool != "weather" || second.CallID != goodID || second.Stage != "" || second.Repaired != 0 {
			t.Errorf("second call row = %+v, want weather's %s passing as written", second, goodID)
		}
		r := a.Sent(t, srv, 1).Last(t).Result(t)
		if r.ID != badID || fnv.Hex32a(r.Text) != first.CorrectiveMessageHash || (a.NamesResults && r.Name != "weather") {
			t.Errorf("the call's result sent = %+v, want the corrective message for %s whose hash is %s", r, badID, first.CorrectiveMessageHash)
		}
		if r := a.Sent(t, srv, 2).Last(t).Result(t); r.ID != goodID || r.Text != "18°C" {
			t.Errorf("the second call's result sent = %+v, want the tool's output for %s", r, goodID)
		}
	})
}
