package eval_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

func TestChecksHoldAnAnswersValuesBeyondItsShape(t *testing.T) {
	checks := `[{"at":"/city","contains":"sl"},{"at":"/city","notContains":"Rome"},{"at":"/city","regex":"^[A-Z][a-z]+$"},{"at":"/tempC","near":3,"tolerance":0.5},{"at":"","contains":"tempC"}]`
	data := strings.Join([]string{
		`{"id":"good","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Oslo\",\"tempC\":3.4}","checks":` + checks + `}`,
		`{"id":"off","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"rome Rome\",\"tempC\":4}","checks":` + checks + `}`,
		`{"id":"broken","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Oslo\"}","checks":` + checks + `}`,
	}, "\n")
	rep := offline(t, data, eval.Options{Repairs: enforce.AllRepairs})
	good, off, broken := rep.Cases[0].Checks, rep.Cases[1].Checks, rep.Cases[2].Checks
	if good == nil || good.Run != 5 || good.Passed != 5 || len(good.Failed) != 0 {
		t.Errorf("good's checks = %+v, want 5 of 5 passed", good)
	}
	if off == nil || off.Passed != 1 || len(off.Failed) != 4 {
		t.Fatalf("off's checks = %+v, want 1 passed (the whole answer holds tempC), 4 failed", off)
	}
	var at []int
	for _, f := range off.Failed {
		at = append(at, f.Check)
	}
	if want := []int{0, 1, 2, 3}; len(at) != 4 || at[0] != want[0] || at[3] != want[3] || off.Failed[3].Why == "" {
		t.Errorf("off's failed checks = %+v, want 0 to 3, each with why", off.Failed)
	}
	if broken == nil || broken.Passed != 0 || len(broken.Failed) != 5 {
		t.Errorf("broken's checks = %+v, want all 5 failed: its answer fails its contract", broken)
	}
	if g := rep.Groups[0]; g.ChecksRun != 15 || g.ChecksPassed != 6 {
		t.Errorf("group checks %d run, %d passed; want 15 and 6", g.ChecksRun, g.ChecksPassed)
	}
}

func TestChecksThatCannotRunStopTheEvalNamingTheLine(t *testing.T) {
	for _, bad := range []string{
		`[{"at":"/city","regex":"("}]`,
		`[{"at":"/city"}]`,
		`[{"at":"/city","contains":"a","regex":"a"}]`,
		`[{"at":"city","contains":"a"}]`,
		`[{"at":"/tempC","near":3,"tolerance":-1}]`,
	} {
		data := `{"schema":` + cityJSON + `,"output":"{}"}` + "\n" + `{"schema":` + cityJSON + `,"output":"{}","checks":` + bad + `}`
		_, err := eval.Offline(t.Context(), strings.NewReader(data), eval.Options{})
		if !errors.Is(err, eval.ErrBadCheck) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("checks %s: err = %v, want ErrBadCheck at line 2", bad, err)
		}
	}
}

func TestLiveRunsChecksOnEachRunsFinalAnswer(t *testing.T) {
	data := `{"id":"oslo","schema":` + cityJSON + `,"prompt":"oslo","checks":[{"at":"/city","contains":"Os"},{"at":"/tempC","near":10,"tolerance":1}]}`
	rep, err := eval.Live(t.Context(), strings.NewReader(data), eval.LiveOptions{Model: scripted("m"), Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if g := rep.Groups[0]; g.ChecksRun != 4 || g.ChecksPassed != 2 {
		t.Errorf("group checks %d run, %d passed; want 4 and 2 (tempC is 3, not near 10)", g.ChecksRun, g.ChecksPassed)
	}
	if r := rep.Cases[0].Runs[0]; r.Checks == nil || len(r.Checks.Failed) != 1 || r.Checks.Failed[0].Check != 1 {
		t.Errorf("the first run's checks = %+v, want check 1 failed", r.Checks)
	}
}

func TestJUnitFailsACaseWhoseChecksFail(t *testing.T) {
	data := `{"id":"x","model":"a","schema":` + cityJSON + `,"output":"{\"city\":\"Oslo\",\"tempC\":3}","checks":[{"at":"/city","contains":"Rome"}]}`
	var b strings.Builder
	if err := eval.WriteJUnit(&b, offline(t, data, eval.Options{})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `failures="1"`) || !strings.Contains(b.String(), `message="check 0: #/city does not contain &#34;Rome&#34;"`) {
		t.Errorf("a case passing its contract but failing a check:\n%s", b.String())
	}
}
