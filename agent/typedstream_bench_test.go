package agent_test

import (
	"context"
	"iter"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// The typed stream's figures: the ~1 KiB Report answer in 16-byte chunks.
// Per chunk, the typed stream adds to the judge (BenchmarkStreamJudge16B)
// what BenchmarkRunTypedStream16B costs over BenchmarkRunTypedStreamed16B
// (the same run, streamed, with no partials), divided by the chunks.

const benchChunk = 16

func chunked(answer string) []agent.Chunk {
	var cs []agent.Chunk
	for i := 0; i < len(answer); i += benchChunk {
		cs = append(cs, agent.Chunk{Text: answer[i:min(i+benchChunk, len(answer))]})
	}
	return append(cs, agent.Chunk{Stop: agent.StopComplete})
}

// replay streams the same chunks on every call.
type replay []agent.Chunk

func (r replay) Generate(context.Context, agent.Request) (agent.Response, error) {
	panic("streamed")
}

func (r replay) GenerateStream(context.Context, agent.Request) iter.Seq2[agent.Chunk, error] {
	return func(yield func(agent.Chunk, error) bool) {
		for _, c := range r {
			if !yield(c, nil) {
				return
			}
		}
	}
}

// BenchmarkStreamJudge16B is the incremental judge alone: every chunk
// written, then Close.
func BenchmarkStreamJudge16B(b *testing.B) {
	answer := report1KiB(b)
	s, err := enforce.SchemaFor[Report]()
	if err != nil {
		b.Fatal(err)
	}
	cs := chunked(answer)
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		st := s.Stream()
		for _, c := range cs {
			if _, err := st.WriteString(c.Text); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(cs)-1), "chunks/op")
}

// BenchmarkStreamJudgePartial16B adds Incremental.Partial after every chunk:
// the enforce side of the typed stream.
func BenchmarkStreamJudgePartial16B(b *testing.B) {
	answer := report1KiB(b)
	s, err := enforce.SchemaFor[Report]()
	if err != nil {
		b.Fatal(err)
	}
	cs := chunked(answer)
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		st := s.Stream()
		for _, c := range cs {
			if _, err := st.WriteString(c.Text); err != nil {
				b.Fatal(err)
			}
			st.Partial()
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTypedStreamed16B is RunTyped over a model that streams, with
// nothing watching: the run without partials.
func BenchmarkRunTypedStreamed16B(b *testing.B) { benchRunTypedStreamed16B(b, context.Background()) }

// benchRunTypedStreamed16B runs BenchmarkRunTypedStreamed16B under ctx.
func benchRunTypedStreamed16B(b *testing.B, ctx context.Context) {
	answer := report1KiB(b)
	a := agent.New(replay(chunked(answer)))
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := agent.RunTyped[Report](ctx, a, "Count the stock."); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTypedStream16B is the same run through RunTypedStream,
// every Partial read.
func BenchmarkRunTypedStream16B(b *testing.B) {
	answer := report1KiB(b)
	a := agent.New(replay(chunked(answer)))
	ctx := context.Background()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		s := agent.RunTypedStream[Report](ctx, a, "Count the stock.")
		n = 0
		for range s.Partials() {
			n++
		}
		if _, _, err := s.Result(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "partials/op")
}
