package eval_test

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

const lookupParams = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`

// calls is a dataset of recorded tool calls: lookup's written as its
// parameters ask, double-encoded as a string, and with a number for
// city; none's without arguments.
var calls = strings.Join([]string{
	`{"id":"l1","model":"m","tool":"lookup","schema":` + lookupParams + `,"output":"{\"city\":\"Oslo\"}"}`,
	`{"id":"l2","model":"m","tool":"lookup","schema":` + lookupParams + `,"output":"\"{\\\"city\\\":\\\"Rome\\\"}\"","expected":{"city":"Rome"}}`,
	`{"id":"l3","model":"m","tool":"lookup","schema":` + lookupParams + `,"output":"{\"city\":3}"}`,
	`{"id":"n1","model":"m","tool":"none","schema":{"type":"object","additionalProperties":false},"output":""}`,
}, "\n")

func TestOfflineJudgesRecordedToolCallsGroupedByTool(t *testing.T) {
	var verdicts []eval.Verdict
	rep := offline(t, calls, eval.Options{Repairs: enforce.AllRepairs, Verdict: func(v eval.Verdict) { verdicts = append(verdicts, v) }})
	lookup := group(t, rep, "lookup")
	if lookup.Records != 3 || lookup.PassedAsWritten != 1 || lookup.PassedAfterRepair != 2 || lookup.Failed[enforce.StageSchemaValidate] != 1 {
		t.Errorf("lookup = %+v, want 3 calls: 1 passed as written, 2 after repair (coerce), 1 failed at schema-validate", lookup)
	}
	// A call without arguments is judged as {}, as the agent judges it.
	if none := group(t, rep, "none"); none.Records != 1 || none.PassedAsWritten != 1 {
		t.Errorf("none = %+v, want its call without arguments passed as written", none)
	}
	l2 := verdicts[1]
	if l2.Repaired != enforce.RepairCoerce || l2.Fields == nil || l2.Fields.Matched != 1 {
		t.Errorf("l2 = %+v, want mended by coerce, the mended arguments holding the expected city", l2)
	}
	if l3 := verdicts[2]; len(l3.Issues) != 1 || l3.Issues[0].Path != "/city" {
		t.Errorf("l3 = %+v, want one issue at /city", l3)
	}
	// -by model groups them by the model that wrote them.
	if g := group(t, offline(t, calls, eval.Options{By: "model"}), "m"); g.Records != 4 {
		t.Errorf("by model = %+v, want the four calls in m", g)
	}
}
