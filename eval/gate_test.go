package eval_test

import (
	"testing"

	"github.com/enforcer-go/enforcer/eval"
)

func report(groups ...eval.Group) *eval.Report {
	r := &eval.Report{Groups: groups}
	for _, g := range groups {
		r.Records += g.Records
	}
	return r
}

func TestBelowNamesTheGroupsUnderTheRate(t *testing.T) {
	rep := report(
		eval.Group{Group: "a", Records: 10, PassedAsWritten: 9, PassedAfterRepair: 10},
		eval.Group{Group: "b", Records: 11, SchemaErrors: 1, PassedAsWritten: 8, PassedAfterRepair: 8},
	)
	low, err := rep.Below(eval.AsWritten, 0.85)
	if err != nil || len(low) != 1 || low[0].Group != "b" {
		t.Errorf("Below(as-written, 0.85) = %v, %v; want b alone (8 of its 10 judged)", low, err)
	}
	if low, _ := rep.Below(eval.AfterRepair, 0.8); len(low) != 0 {
		t.Errorf("Below(after-repair, 0.8) = %v, want none (b is at 0.8 exactly)", low)
	}
	if _, err := rep.Below("sometimes", 0.5); err == nil {
		t.Error("Below with an unknown rate: nil error")
	}
}

func TestCompareFlagsARateThatFellBeyondTheTolerance(t *testing.T) {
	old := report(
		eval.Group{Group: "a", Records: 100, PassedAsWritten: 90, PassedAfterRepair: 95, Pointers: []eval.Count{{Key: "/x", Count: 5}}},
		eval.Group{Group: "gone", Records: 1, PassedAsWritten: 1, PassedAfterRepair: 1},
	)
	new := report(
		eval.Group{Group: "a", Records: 100, PassedAsWritten: 89, PassedAfterRepair: 90, Pointers: []eval.Count{{Key: "/x", Count: 5}, {Key: "/y", Count: 5}}},
		eval.Group{Group: "added", Records: 1},
	)
	d := eval.Compare(old, new, 0.02)
	var got []string
	for _, c := range d.Regressions() {
		got = append(got, c.Group+" "+string(c.Rate))
	}
	want := []string{"a after-repair", "gone as-written", "gone after-repair"}
	if len(got) != len(want) {
		t.Fatalf("regressions = %v, want %v (a's as-written fell 1 point, within 2; the added group is no regression)", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("regression %d = %q, want %q", i, got[i], want[i])
		}
	}
	if len(d.Pointers) != 1 || d.Pointers[0] != (eval.PointerChange{Group: "a", Pointer: "/y", Old: 0, New: 5}) {
		t.Errorf("pointers that moved = %+v, want /y of a, 0 → 5", d.Pointers)
	}
}
