package eval_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/eval"
)

// judgeCheck asks the model "judge-m" whether the city is a capital.
const judgeCheck = `[{"at":"/city","judge":"Is the city a capital?","model":"judge-m"}]`

// judgesOf reaches only the model "judge-m", m, and counts the names it
// was asked for.
func judgesOf(m agent.Model, asked *[]string) eval.Judges {
	return eval.Judges{
		Model: func(name string) (agent.Model, error) {
			*asked = append(*asked, name)
			if name != "judge-m" {
				return nil, errors.New("no such model")
			}
			return m, nil
		},
		// A million tokens in cost 1, out 10: 50 in and 5 out are 100e-6.
		Agent: []agent.Option{agent.WithPrices(map[string]agent.Price{"": {Input: 1, Output: 10}})},
	}
}

// A judge check asks its named model the rubric about the member, as
// agent.Judge does: the verdict and reason are on the case, and its
// tokens and money are counted apart; an answer that fails its contract
// is not judged.
func TestAJudgeCheckAsksItsModelTheRubric(t *testing.T) {
	jm := agenttest.NewModel(t,
		agenttest.Reply(`{"pass":false,"reason":"Lyon is no capital"}`).WithUsage(50, 5),
		agenttest.Reply(`{"pass":true,"reason":"Oslo is Norway's"}`).WithUsage(40, 4))
	var asked []string
	data := strings.Join([]string{
		`{"id":"lyon","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Lyon\",\"tempC\":3}","checks":` + judgeCheck + `}`,
		`{"id":"oslo","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Oslo\",\"tempC\":3}","checks":` + judgeCheck + `}`,
		`{"id":"broken","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Rome\"}","checks":` + judgeCheck + `}`,
	}, "\n")
	rep := offline(t, data, eval.Options{Judges: judgesOf(jm, &asked)})

	lyon, oslo, broken := rep.Cases[0].Checks, rep.Cases[1].Checks, rep.Cases[2].Checks
	want := []eval.Judged{{Check: 0, Model: "judge-m", Pass: false, Reason: "Lyon is no capital", Tokens: 55, Money: 100e-6}}
	if lyon == nil || len(lyon.Judged) != 1 || math.Abs(lyon.Judged[0].Money-want[0].Money) > 1e-12 {
		t.Fatalf("lyon's checks = %+v, want %+v", lyon, want)
	}
	lyon.Judged[0].Money = want[0].Money
	if !reflect.DeepEqual(lyon.Judged, want) || lyon.Passed != 0 || len(lyon.Failed) != 1 || lyon.Failed[0].Why != "judge judge-m: Lyon is no capital" {
		t.Errorf("lyon's checks = %+v, want the judge's verdict %+v and the check failed with its reason", lyon, want)
	}
	if oslo == nil || oslo.Passed != 1 || len(oslo.Judged) != 1 || !oslo.Judged[0].Pass || oslo.Judged[0].Tokens != 44 {
		t.Errorf("oslo's checks = %+v, want passed by the judge, 44 tokens", oslo)
	}
	if broken == nil || len(broken.Judged) != 0 || len(broken.Failed) != 1 {
		t.Errorf("broken's checks = %+v, want failed, no judge asked", broken)
	}
	if calls := jm.Calls(); calls != 2 {
		t.Errorf("the judge was asked %d times, want 2", calls)
	}
	q := jm.Requests()[0].Messages
	if got := q[len(q)-1].Content; !strings.Contains(got, "Is the city a capital?") || !strings.Contains(got, `"Lyon"`) || strings.Contains(got, "tempC") {
		t.Errorf("the judge's question = %q, want the rubric and the member only", got)
	}
	if len(asked) != 1 {
		t.Errorf("Judges.Model asked for %v, want the name once", asked)
	}
	g := rep.Groups[0]
	if g.JudgeTokens != 99 || math.Abs(g.JudgeMoney-(100e-6+80e-6)) > 1e-12 || g.Tokens != 0 || g.Money != 0 || g.ChecksRun != 3 || g.ChecksPassed != 1 {
		t.Errorf("group = %+v, want the judges' 99 tokens and 180e-6 apart from the runs' 0, 1 of 3 checks passed", g)
	}
}

// A live run's judge spends apart from the run: the group's Tokens are
// the runs', JudgeTokens the judge's; runs at once share the judge.
func TestALiveRunsJudgeIsCountedApart(t *testing.T) {
	passes := agenttest.Reply(`{"pass":true,"reason":"Oslo is Norway's"}`).WithUsage(40, 4)
	jm := agenttest.NewModel(t, passes, passes)
	var asked []string
	data := `{"id":"oslo","schema":` + cityJSON + `,"prompt":"oslo","checks":` + judgeCheck + `}`
	rep, err := eval.Live(t.Context(), strings.NewReader(data), eval.LiveOptions{Model: scripted("m"), Runs: 2, Concurrency: 2, Judges: judgesOf(jm, &asked)})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Groups[0]
	if g.Tokens != 30 || g.JudgeTokens != 88 || g.ChecksPassed != 2 {
		t.Errorf("group = %+v, want the two runs' 30 tokens, the judge's 88 apart, both checks passed", g)
	}
	if r := rep.Cases[0].Runs[0]; r.Checks == nil || len(r.Checks.Judged) != 1 || !r.Checks.Judged[0].Pass {
		t.Errorf("the run's checks = %+v, want the judge's verdict", r.Checks)
	}
}

// A judge check without a rubric or a model, or with a model no Judges
// reaches, cannot run: the eval stops naming the line.
func TestAJudgeCheckThatCannotRunStopsTheEval(t *testing.T) {
	var asked []string
	reach := judgesOf(agenttest.NewModel(t), &asked)
	for _, c := range []struct {
		name, checks string
		judges       eval.Judges
		bad          bool // ErrBadCheck, not the model's own error
	}{
		{"no way to reach models", judgeCheck, eval.Judges{}, true},
		{"no model named", `[{"at":"/city","judge":"Is it a capital?"}]`, reach, true},
		{"an empty rubric", `[{"at":"/city","judge":" ","model":"judge-m"}]`, reach, true},
		{"a model on another check", `[{"at":"/city","contains":"O","model":"judge-m"}]`, reach, true},
		{"a model Judges cannot make", `[{"at":"/city","judge":"Is it a capital?","model":"other"}]`, reach, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := `{"schema":` + cityJSON + `,"output":"{}"}` + "\n" + `{"schema":` + cityJSON + `,"output":"{}","checks":` + c.checks + `}`
			_, err := eval.Offline(t.Context(), strings.NewReader(data), eval.Options{Judges: c.judges})
			if err == nil || !strings.Contains(err.Error(), "line 2") || errors.Is(err, eval.ErrBadCheck) != c.bad {
				t.Errorf("err = %v, want an error at line 2 (ErrBadCheck: %v)", err, c.bad)
			}
		})
	}
}
