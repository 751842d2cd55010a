package enforce_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/corpus"
	"github.com/enforcer-go/enforcer/internal/proc"
)

// TestRepairsOnRealModelOutputs: with every repair chosen, at least 95.5%
// of the real completions that fail as written pass with no model call,
// and none that passes as written fails or is changed. Each repair set's
// share is logged, and how many each combination of repairs mended.
func TestRepairsOnRealModelOutputs(t *testing.T) {
	recs := corpus.ModelOutputs(t)
	sets := []enforce.Repairs{
		enforce.RepairFence, enforce.RepairFence | enforce.RepairProse,
		enforce.RepairFence | enforce.RepairSyntax | enforce.RepairProse,
		enforce.RepairCoerce, enforce.AllRepairs,
	}
	schemas := map[string]*enforce.Schema{}
	passed, failing, refused := 0, 0, 0
	mended := map[enforce.Repairs]int{}
	byRepair := map[string]int{}
	var stillFailing []string
	for _, r := range recs {
		key := string(r.Schema)
		s, ok := schemas[key]
		if !ok {
			var err error
			if s, err = enforce.CompileSchema(r.Schema); err != nil {
				s = nil
			}
			schemas[key] = s
		}
		if s == nil {
			refused++
			continue
		}
		if s.Check(r.Output) == nil {
			passed++
			for _, rs := range sets {
				if err := s.WithRepairs(rs).Check(r.Output); err != nil {
					t.Errorf("%s: passes as written but fails with %s: %v", r.Source, rs, err)
				}
			}
			if got, applied := s.WithRepairs(enforce.AllRepairs).Repaired(r.Output); got != r.Output || applied != 0 {
				t.Errorf("%s: passes as written but is changed by %s", r.Source, applied)
			}
			continue
		}
		failing++
		for _, rs := range sets {
			m := s.WithRepairs(rs)
			if m.Check(r.Output) == nil {
				mended[rs]++
				if rs == enforce.AllRepairs {
					_, applied := m.Repaired(r.Output)
					byRepair[applied.String()]++
				}
			} else if rs == enforce.AllRepairs {
				stillFailing = append(stillFailing, r.Output)
			}
		}
	}
	if refused > 0 {
		t.Logf("%d records' schemas were refused", refused)
	}
	t.Logf("%d records: %d pass as written, %d fail", len(recs), passed, failing)
	for _, rs := range sets {
		t.Logf("  with %-26s %4d of the failing pass (%.1f%%)", rs.String()+":", mended[rs], 100*float64(mended[rs])/float64(failing))
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(byRepair)) {
		fmt.Fprintf(&b, " %s=%d", k, byRepair[k])
	}
	t.Logf("  repairs applied to those that passed:%s", b.String())
	all := mended[enforce.AllRepairs]
	if failing == 0 || float64(all) < 0.955*float64(failing) {
		t.Errorf("with every repair %d of %d failing completions pass (%.1f%%), want at least 95.5%%", all, failing, 100*float64(all)/float64(max(failing, 1)))
		for i, out := range stillFailing {
			if i == 20 {
				break
			}
			t.Logf("still failing: %q", clip(out, 300))
		}
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// BenchmarkRepairsOnRealModelOutputs is Check with every repair chosen
// over each real completion in turn, passing and failing alike; ns/op and
// cpu-ns/op (the process's processor time, its garbage collection
// included) are per output.
func BenchmarkRepairsOnRealModelOutputs(b *testing.B) {
	recs := corpus.ModelOutputs(b)
	type job struct {
		s      *enforce.Schema
		output string
	}
	var jobs []job
	schemas := map[string]*enforce.Schema{}
	for _, r := range recs {
		s, ok := schemas[string(r.Schema)]
		if !ok {
			if c, err := enforce.CompileSchema(r.Schema); err == nil {
				s = c.WithRepairs(enforce.AllRepairs)
			}
			schemas[string(r.Schema)] = s
		}
		if s != nil {
			jobs = append(jobs, job{s, r.Output})
		}
	}
	b.ReportAllocs()
	i := 0
	start := proc.CPUTime()
	for b.Loop() {
		j := jobs[i%len(jobs)]
		_ = j.s.Check(j.output)
		i++
	}
	b.ReportMetric(float64((proc.CPUTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
