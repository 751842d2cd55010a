package enforce

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestPIICorpus measures PII's precision and recall, kind by kind, over
// testdata/pii/corpus.txt, and holds them to the floors docs/guardrails.md
// states: a finding counts when its kind and bytes are a mark's.
func TestPIICorpus(t *testing.T) {
	f, err := os.Open("testdata/pii/corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type tally struct{ tp, fp, fn int }
	got := map[PIIKind]*tally{}
	all := map[PIIKind]bool{}
	for _, k := range piiKinds {
		all[k] = true
	}
	for k := range all {
		got[k] = &tally{}
	}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := lines.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		text, marks := unmark(t, line)
		found := map[piiMatch]bool{}
		for _, m := range findPII(text, all) {
			found[m] = true
		}
		for _, m := range marks {
			if found[m] {
				got[m.kind].tp++
				delete(found, m)
			} else {
				got[m.kind].fn++
				t.Logf("missed %s %q", m.kind, text[m.start:m.end])
			}
		}
		for m := range found {
			got[m.kind].fp++
			t.Logf("found %s %q that is not", m.kind, text[m.start:m.end])
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	floors := map[PIIKind]struct{ precision, recall float64 }{
		PIIEmail: {0.9, 1}, PIIPhone: {0.95, 0.85}, PIICard: {1, 1}, PIIIBAN: {1, 1},
		PIISSN: {0.6, 1}, PIININO: {0.6, 1}, PIIDNI: {1, 1}, PIINIR: {1, 1}, PIIAadhaar: {0.75, 1}, PIISteuerID: {1, 1},
	}
	for _, k := range piiKinds {
		g := got[k]
		precision := float64(g.tp) / float64(max(1, g.tp+g.fp))
		recall := float64(g.tp) / float64(max(1, g.tp+g.fn))
		t.Logf("%-5s precision %.2f (%d/%d) recall %.2f (%d/%d)", k, precision, g.tp, g.tp+g.fp, recall, g.tp, g.tp+g.fn)
		if precision < floors[k].precision || recall < floors[k].recall {
			t.Errorf("%s: precision %.2f, recall %.2f, below the floors %.2f, %.2f", k, precision, recall, floors[k].precision, floors[k].recall)
		}
	}
}

// unmark returns line without its ⟦kind:text⟧ marks, and the marks.
func unmark(t *testing.T, line string) (string, []piiMatch) {
	var b strings.Builder
	var marks []piiMatch
	for {
		open := strings.Index(line, "⟦")
		if open < 0 {
			b.WriteString(line)
			return b.String(), marks
		}
		b.WriteString(line[:open])
		rest := line[open+len("⟦"):]
		colon, end := strings.IndexByte(rest, ':'), strings.Index(rest, "⟧")
		if colon < 0 || end < colon {
			t.Fatalf("a bad mark in %q", line)
		}
		start := b.Len()
		b.WriteString(rest[colon+1 : end])
		marks = append(marks, piiMatch{PIIKind(rest[:colon]), start, b.Len()})
		line = rest[end+len("⟧"):]
	}
}
