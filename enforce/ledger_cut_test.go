package enforce_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/fnv"
)

// early feeds answer to an Incremental of s and returns the early verdict and
// the answer up to and including the byte that gave it.
func early(t *testing.T, s *enforce.Schema, answer string) (*enforce.CheckError, string) {
	t.Helper()
	st := s.Stream()
	for i := range len(answer) {
		if _, err := st.WriteString(answer[i : i+1]); err != nil {
			var ce *enforce.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("Write: %v, want a *CheckError", err)
			}
			return ce, answer[:i+1]
		}
	}
	t.Fatalf("no early verdict for %q", answer)
	return nil, ""
}

func TestACutAnswerIsRecordedAtItsEarlyVerdict(t *testing.T) {
	s := mustCompile(t, citySchema)
	// The early verdict is at /extra (additionalProperties); the whole
	// cut text would fail json-parse at its end instead.
	ce, read := early(t, s, `{"extra": 1, "city": "Oslo"}`)
	cut := &enforce.Cut{Verdict: ce, Bytes: len(read), OutputTokens: 3}

	t.Run("the row is the early verdict and says how far the answer got", func(t *testing.T) {
		l := newLedger(t, 1)
		v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: read, Cut: cut})
		got := v.Row
		if got.Outcome != enforce.OutcomeRetried || got.Stage != ce.Stage || got.Path != "/extra" || got.Error != ce.Issues[0].Message {
			t.Errorf("row = %+v, want retried at %s %q with the early verdict's message", got, ce.Stage, "/extra")
		}
		if got.Cut == nil || *got.Cut != (enforce.Cut{Bytes: len(read), OutputTokens: 3}) {
			t.Errorf("row.Cut = %+v, want bytes %d, output tokens 3, no verdict", got.Cut, len(read))
		}
		if read != `{"extra"` {
			t.Fatalf("the verdict came after %q, want after the member name closes", read)
		}
		if !strings.Contains(v.Corrective, "after its first 8 bytes") {
			t.Errorf("corrective does not say where the answer was stopped:\n%s", v.Corrective)
		}
		if got.CorrectiveMessageHash != fnv.Hex32a(v.Corrective) {
			t.Errorf("hash %s is not the corrective's", got.CorrectiveMessageHash)
		}
	})
	t.Run("without retries left the error is the early verdict", func(t *testing.T) {
		l := newLedger(t, 0)
		v := l.Judge(context.Background(), enforce.Answer{Iteration: 1, Given: read, Cut: cut})
		var oe *enforce.OutputError
		if !errors.As(v.Err, &oe) || oe.Path != "/extra" || oe.Output != read || !errors.Is(v.Err, ce) {
			t.Errorf("Err = %v, want an OutputError at /extra over the cut text", v.Err)
		}
	})
	t.Run("Schema.Judge gives the early verdict too", func(t *testing.T) {
		var oe *enforce.OutputError
		if err := s.Judge(context.Background(), enforce.Answer{Given: read, Cut: cut}); !errors.As(err, &oe) || oe.Path != "/extra" {
			t.Errorf("Judge = %v, want an OutputError at /extra", err)
		}
	})
}
