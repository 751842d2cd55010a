package enforce_test

import (
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/corpus"
)

// underRace is set under the race detector (race_on_test.go).
var underRace bool

// TestStreamReachOnRealSchemas feeds every labelled document of the
// real-world corpus whose schema compiles to an Incremental, in 16-byte chunks,
// as written: on the failing ones it counts early verdicts and the bytes
// never read, and holds them to at least 99% of the failing documents and
// half of their bytes (docs/compare.md quotes both); on every one, an
// early verdict on a passing document or a Close that differs from Check
// is a soundness violation. Under the race detector it reads every 8th
// schema.
func TestStreamReachOnRealSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole real-world corpus")
	}
	files := corpus.Bench(t, corpus.Main)
	failing, early, violations := 0, 0, 0
	var failBytes, unread int64
	for i, bf := range files {
		if underRace && i%8 != 0 {
			continue
		}
		s, err := enforce.CompileSchema(bf.Schema)
		if err != nil {
			continue
		}
		for _, tc := range bf.Tests {
			doc := string(tc.Data)
			want := s.Check(doc)
			st := s.Stream()
			read, werr := 0, error(nil)
			for i := 0; i < len(doc) && werr == nil; i += 16 {
				var n int
				n, werr = st.WriteString(doc[i:min(i+16, len(doc))])
				read += n
			}
			if want == nil {
				if werr != nil || st.Close() != nil {
					violations++
					if violations <= 5 {
						t.Errorf("%s: a passing document was failed: %v %v\n%s", bf.Name, werr, st.Close(), clip(doc, 300))
					}
				}
				continue
			}
			failing++
			failBytes += int64(len(doc))
			var ce *enforce.CheckError
			if werr != nil && errors.As(werr, &ce) {
				early++
				unread += int64(len(doc) - read)
				continue
			}
			if got := st.Close(); got == nil || got.Error() != want.Error() {
				violations++
				if violations <= 5 {
					t.Errorf("%s: Close = %v, Check = %v", bf.Name, got, want)
				}
			}
		}
	}
	t.Logf("%d failing documents: early verdict on %d (%.1f%%); %.1f%% of their bytes never read; %d violations",
		failing, early, 100*float64(early)/float64(max(failing, 1)), 100*float64(unread)/float64(max(failBytes, 1)), violations)
	if failing > 0 && (float64(early) < 0.99*float64(failing) || float64(unread) < 0.5*float64(failBytes)) {
		t.Errorf("early verdicts on %d of %d failing documents, %d of their %d bytes unread: want at least 99%% and half", early, failing, unread, failBytes)
	}
}
