package agent_test

import (
	"errors"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
)

// FuzzEarlyAbort streams a model's answer in chunks of a random size and
// holds the loop to the rules of early abort: an answer that passes is
// never cut; a cut lands where the incremental judge, fed byte by byte,
// gives its verdict, whatever the chunks, with that verdict; the
// conversation keeps the answer up to there; with tools offered, nothing
// is cut; a cut stops the stream and cancels its call; an answer not cut
// is judged whole, as Generate's would be.
func FuzzEarlyAbort(f *testing.F) {
	for _, a := range []string{valid, prose, missing, "```json\n" + valid + "\n```", `{"city":true}`,
		`{"town":"Paris"}`, `  {"city":"Paris","tempC":2.5}`, `[1]`, "", " \n", valid + " !", `{"city":"Pa` + "\xff"} {
		f.Add(a, uint8(3), false)
		f.Add(a, uint8(1), true)
	}
	s := weatherSchema(f)
	f.Fuzz(func(t *testing.T, answer string, size uint8, tools bool) {
		if len(answer) > 4096 {
			return
		}
		passes := s.Check(answer) == nil
		steps := []agenttest.Step{agenttest.Reply(answer).InChunks(int(size%32) + 1)}
		if !passes {
			steps = append(steps, agenttest.Reply(valid))
		}
		m := agenttest.NewStreamingModel(t, steps...)
		opts := []agent.Option{agent.WithOutputSchema(s), agent.WithOutputRetries(1)}
		if tools {
			opts = append(opts, agent.WithTools(lookup))
		}
		res, err := agent.New(m, opts...).Run(t.Context(), "Weather?")
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		row := res.Attempts[0]
		given := res.Messages[2].Content
		if passes {
			if row.Outcome != enforce.OutcomePassed || row.Cut != nil || given != answer {
				t.Fatalf("a passing answer: row %+v, kept %q", row, given)
			}
			return
		}
		want, at := byteVerdict(s, answer)
		if row.Cut == nil {
			ce := checkError(t, s, answer)
			if given != answer || row.Stage != ce.Stage || row.Path != ce.Path() {
				t.Fatalf("an answer not cut: row %+v, kept %q; want it whole, judged as Check judges it (%v)", row, given, ce)
			}
			if want != nil && !tools {
				t.Fatalf("the judge dooms %q at byte %d, but it was not cut", answer, at)
			}
			return
		}
		if want == nil || row.Cut.Bytes != at || given != answer[:at] {
			t.Fatalf("cut after %d bytes (kept %q); the judge dooms the answer at %d (%v)", row.Cut.Bytes, given, at, want)
		}
		if row.Stage != want.Stage || row.Path != want.Path() || row.Error != want.Issues[0].Message {
			t.Fatalf("row %+v, want the early verdict %v", row, want)
		}
		if tools {
			t.Fatalf("with tools offered, %q was cut", answer)
		}
		if c := m.Consumed()[0]; !c.Stopped || !c.Cancelled || c.Bytes < at {
			t.Fatalf("consumed %+v: cut after %d bytes, want the stream stopped there and its call cancelled", c, at)
		}
	})
}

// byteVerdict feeds answer to an Incremental byte by byte and returns its early
// verdict and how many bytes it read to give it.
func byteVerdict(s *enforce.Schema, answer string) (*enforce.CheckError, int) {
	st := s.Stream()
	for i := range len(answer) {
		if _, err := st.WriteString(answer[i : i+1]); err != nil {
			var ce *enforce.CheckError
			errors.As(err, &ce)
			return ce, i + 1
		}
	}
	return nil, 0
}
