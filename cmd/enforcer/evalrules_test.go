package main

import (
	"fmt"
	"strings"
	"testing"
)

// A saved run's rows hold its rules' verdicts: eval reports each rule's
// pass rate in the table, -md and -json.
func TestEvalReportsEachRulesPassRate(t *testing.T) {
	saved := func(verdict string) string {
		return fmt.Sprintf(`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"{\"city\":\"Oslo\"}"}],`+
			`"attempts":[{"attempt":1,"iteration":1,"outcome":"passed","rules":[{"rule":"about-oslo","verdict":%q}]}]}`, verdict)
	}
	var lines []string
	for _, v := range []string{"passed", "passed", "passed", "warned"} {
		lines = append(lines, fmt.Sprintf(`{"model":"a","schema":%s,"result":%s}`, citySchema, saved(v)))
	}
	data := write(t, "saved.jsonl", strings.Join(lines, "\n")+"\n")
	_, out, errs := runCmd(t.Context(), "", "eval", data)
	if want := "a rule about-oslo on answer: passed 3 of 4 (75.0%), warned 1"; !strings.Contains(out, want) {
		t.Errorf("the table lacks %q (stderr %q):\n%s", want, errs, out)
	}
	_, md, _ := runCmd(t.Context(), "", "eval", "-md", data)
	if want := "| a | about-oslo | answer | 3 of 4 (75.0%) | 0 | 0 | 0 | 1 |"; !strings.Contains(md, want) {
		t.Errorf("-md lacks %q:\n%s", want, md)
	}
	rep := evalJSON(t, data)
	if rs := rep.Groups[0].Rules; len(rs) != 1 || rs[0].Asked != 4 || rs[0].Passed != 3 || rs[0].Warned != 1 {
		t.Errorf("-json rules = %+v", rs)
	}
}
