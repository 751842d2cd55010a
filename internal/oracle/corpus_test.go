package oracle_test

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/corpus"
	"github.com/enforcer-go/enforcer/internal/proc"
	"github.com/xeipuuv/gojsonschema"
)

type tally struct{ total, accepted int }

// TestJSONSchemaBench compiles every schema of the corpus and judges every
// labelled document of each schema enforce accepts, beside the oracle; it
// logs, too, what gojsonschema alone compiles and how many of those
// documents it judges otherwise than the oracle.
func TestJSONSchemaBench(t *testing.T) {
	files := corpus.Bench(t, nil)
	if sampleEvery > 1 {
		// Under the race detector the whole corpus takes minutes: a fixed
		// sample keeps CI's time, and the acceptance asked of it allows for
		// its size.
		var sample []corpus.BenchFile
		for i := 0; i < len(files); i += sampleEvery {
			sample = append(sample, files[i])
		}
		t.Logf("the race detector is on: judging every %dth schema, %d of %d", sampleEvery, len(sample), len(files))
		files = sample
	}
	byCategory := map[string]*tally{}
	refusedBy := map[string]int{}
	var wrong, crashes, documents, oracleRefused int
	// gojsonschema alone, on the ten main categories, for docs/compare.md:
	// a figure, not a check of enforce, so not under the race detector,
	// where it would only slow the test command.
	alone := sampleEvery == 1
	var rawAccepted, rawWrong, rawDocuments int
	var rawCompileCPU, rawJudgeCPU time.Duration
	cpu0 := proc.CPUTime()
	times := make([]compileTime, 0, len(files))
	for _, cf := range files {
		c := byCategory[cf.Category]
		if c == nil {
			c = &tally{}
			byCategory[cf.Category] = c
		}
		c.total++
		var raw *gojsonschema.Schema
		if alone && slices.Contains(corpus.MainCategories, cf.Category) {
			t0 := proc.CPUTime()
			if raw = rawCompile(cf.Schema); raw != nil {
				rawAccepted++
			}
			rawCompileCPU += proc.CPUTime() - t0
		}
		start := time.Now()
		s, err, crash := compileEnforce(cf.Schema)
		times = append(times, compileTime{time.Since(start), cf})
		if crash != nil {
			crashes++
			t.Errorf("%s: %v", cf.Name, crash)
			continue
		}
		if err != nil {
			var se *enforce.SchemaError
			if !errors.As(err, &se) {
				t.Errorf("%s: CompileSchema returned %T, want *enforce.SchemaError", cf.Name, err)
			}
			key := se.Keyword + ": " + se.Reason
			if len(key) > 90 {
				key = key[:90]
			}
			refusedBy[key]++
			if testing.Verbose() {
				t.Logf("refused %s: %v", cf.Name, err)
			}
			continue
		}
		c.accepted++
		o, err := compileOracle(cf.Schema)
		if err != nil {
			oracleRefused++
			t.Logf("%s: enforce accepts a schema the oracle refuses: %v", cf.Name, err)
			continue
		}
		for _, tc := range cf.Tests {
			want, err := o(tc.Data)
			if err != nil {
				continue // not JSON the oracle reads
			}
			documents++
			got, crash := enforceVerdict(s, tc.Data)
			if crash != nil {
				crashes++
				t.Errorf("%s / %s: %v", cf.Name, tc.Description, crash)
				continue
			}
			if raw != nil {
				t0 := proc.CPUTime()
				r, ok := rawVerdict(raw, tc.Data)
				rawJudgeCPU += proc.CPUTime() - t0
				if ok {
					rawDocuments++
					if r != want {
						rawWrong++
					}
				}
			}
			if got != want {
				wrong++
				t.Errorf("%s / %s: enforce says valid = %v, the oracle %v; document %s", cf.Name, tc.Description, got, want, cut(string(tc.Data), 300))
			}
		}
	}
	var main tally
	for _, name := range corpus.MainCategories {
		if c := byCategory[name]; c != nil {
			main.total += c.total
			main.accepted += c.accepted
		}
	}
	var lines []string
	for _, name := range sortedKeys(byCategory) {
		c := byCategory[name]
		lines = append(lines, name+" "+ratio(c.accepted, c.total))
	}
	t.Logf("accepted: the ten main categories %s; %s", ratio(main.accepted, main.total), strings.Join(lines, ", "))
	t.Logf("%d documents judged, %d wrong, %d crashes, %d accepted schemas the oracle refuses", documents, wrong, crashes, oracleRefused)
	if alone {
		t.Logf("gojsonschema alone: compiles %s of the ten main categories; of the %d documents of those enforce also accepts, %d get a verdict other than the oracle's (processor time: %v compiling and %v judging of the test's %v)",
			ratio(rawAccepted, main.total), rawDocuments, rawWrong, rawCompileCPU.Round(time.Millisecond), rawJudgeCPU.Round(time.Millisecond), (proc.CPUTime() - cpu0).Round(time.Millisecond))
	}
	checkCompileTimes(t, times)
	for _, k := range sortedKeysByCount(refusedBy) {
		t.Logf("refused %4d× %s", refusedBy[k], k)
	}
	if main.total > 0 && main.accepted*1000 < main.total*minAccepted {
		t.Errorf("accepted %s of the ten main categories, want at least %.1f%%", ratio(main.accepted, main.total), float64(minAccepted)/10)
	}
}

type compileTime struct {
	d  time.Duration
	cf corpus.BenchFile
}

// maxCompile is the most processor time CompileSchema may take on a
// schema of the corpus; under the race detector, which slows it several
// times, a generous bound catches only a schema gone quadratic.
var maxCompile = 50 * time.Millisecond

// sampleEvery is 1, or, under the race detector, the stride of the
// sample of the corpus judged; minAccepted is the share of the ten main
// categories' schemas that must compile, in thousandths: the issue's
// 99.5% of the whole corpus, and 99% of the sample, which is smaller.
var sampleEvery, minAccepted = 1, 995

// checkCompileTimes compiles again the largest schemas and those that
// took longest, and
// holds the processor time of each compile (the fastest of five, with
// the collector's share: see cpuTime) to maxCompile, or to four times what
// gojsonschema alone takes to compile the same schema, whichever is more:
// wall time on a machine shared with other work measures the machine.
func checkCompileTimes(t *testing.T, times []compileTime) {
	sort.Slice(times, func(i, j int) bool { return len(times[i].cf.Schema) > len(times[j].cf.Schema) })
	pick := append([]compileTime(nil), times[:min(12/sampleEvery+2, len(times))]...)
	sort.Slice(times, func(i, j int) bool { return times[i].d > times[j].d })
	for _, ct := range times[:min(6/sampleEvery+2, len(times))] {
		if !slices.ContainsFunc(pick, func(p compileTime) bool { return p.cf.Name == ct.cf.Name }) {
			pick = append(pick, ct)
		}
	}
	var lines []string
	over := 0
	for _, ct := range pick {
		ours := cpuTime(func() { _, _ = enforce.CompileSchema(ct.cf.Schema) })
		alone := cpuTime(func() { _, _ = gojsonschema.NewSchema(gojsonschema.NewBytesLoader(ct.cf.Schema)) })
		lines = append(lines, fmt.Sprintf("%s %v (gojsonschema alone %v)", ct.cf.Name, ours.Round(100*time.Microsecond), alone.Round(100*time.Microsecond)))
		if ours > maxCompile {
			over++
		}
		if ours > max(maxCompile, 4*alone) {
			t.Errorf("compiling %s took %v of processor time, want at most %v or four times gojsonschema's own %v", ct.cf.Name, ours, maxCompile, alone)
		}
	}
	t.Logf("slowest compiles in processor time, the fastest of five (%d over %v): %s", over, maxCompile, strings.Join(lines, ", "))
}

// cpuTime is the least processor time of five runs of f: the process's,
// so that the collector's work counts, as nothing else runs meanwhile.
func cpuTime(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := proc.CPUTime()
		f()
		best = min(best, proc.CPUTime()-start)
	}
	return best
}

// rawCompile is gojsonschema's own compile of schema, as a caller would
// use it without enforce: nil when it refuses the schema or panics.
func rawCompile(schema []byte) (s *gojsonschema.Schema) {
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(schema))
	if err != nil {
		return nil
	}
	return s
}

// rawVerdict is gojsonschema's own verdict on doc; ok is false when it
// returns an error or panics instead.
func rawVerdict(s *gojsonschema.Schema, doc []byte) (valid, ok bool) {
	defer func() {
		if recover() != nil {
			valid, ok = false, false
		}
	}()
	res, err := s.Validate(gojsonschema.NewBytesLoader(doc))
	if err != nil {
		return false, false
	}
	return res.Valid(), true
}
