package jetstream_test

import (
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
)

// benchRecord is the record both append benchmarks write: a retry
// notification's record, as a Stream appends it.
func benchRecord(seq int64) events.Record {
	return events.Record{Stream: session, Sequence: seq, ID: "018f9008-71aa-7000-8000-000000000041",
		Time: time.UnixMilli(1754590940000).UTC(),
		Event: events.TurnRetry{TurnID: "018f6a1e-9b3c-7c21-a54a-2f30bd3c9f10", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
			RetryDelay: 2 * time.Second, Reason: "provider stream disconnected"}}
}

// BenchmarkAppend appends records through the Log: marshal, size check,
// a publish that expects the subject's last sequence, the acknowledgement.
func BenchmarkAppend(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	_, js := connect(b, s.ClientURL())
	l := open(b, js, session)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := l.Append(benchRecord(int64(i) + 1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawPublish publishes the same bytes to the same subject of the
// same stream with nats.go alone, waiting for each acknowledgement: the
// floor BenchmarkAppend is compared with.
func BenchmarkRawPublish(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	_, js := connect(b, s.ClientURL())
	open(b, js, session) // creates the stream
	data, err := benchRecord(1).MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	subject := "enforcer.session." + session
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := js.Publish(b.Context(), subject, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCrossProcessLatency measures, per record, the time from asking
// a writer process to append to the SSE frame reaching a client of a
// stream that follows the session in this process (pipe, append,
// acknowledgement, watch, fold, HTTP); it reports the median and p99.
func BenchmarkCrossProcessLatency(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	_, js := connect(b, s.ClientURL())
	cp := startCrossProcess(b, s.ClientURL(), js)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		_, d := cp.turn(b)
		lat = append(lat, d)
	}
	b.StopTimer()
	reportLatency(b, lat)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkRawPublishExpectingTheLastSequence is BenchmarkRawPublish with
// the header Append sends: what the server's check of the subject's last
// sequence costs.
func BenchmarkRawPublishExpectingTheLastSequence(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	_, js := connect(b, s.ClientURL())
	open(b, js, session) // creates the stream
	data, err := benchRecord(1).MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	subject := "enforcer.session." + session
	b.ReportAllocs()
	b.ResetTimer()
	var last uint64
	for range b.N {
		ack, err := js.Publish(b.Context(), subject, data, jetstream.WithExpectLastSequencePerSubject(last))
		if err != nil {
			b.Fatal(err)
		}
		last = ack.Sequence
	}
}

// BenchmarkOpen opens a session of 1000 records: the scan that learns
// where each record is (batched reads through a consumer).
func BenchmarkOpen(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	_, js := connect(b, s.ClientURL())
	l := open(b, js, session)
	const n = 1000
	for i := range n {
		if err := l.Append(benchRecord(int64(i) + 1)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r := open(b, js, session)
		if r.Last() != n {
			b.Fatalf("Last = %d, want %d", r.Last(), n)
		}
		r.Close()
	}
}

// BenchmarkOpenStream opens a session of 1000 records and a Stream over
// it, as a UI server does: the scan, then Records(0) for the Stream,
// which reads back every record the log does not keep in memory.
func BenchmarkOpenStream(b *testing.B) {
	s := startServer(b, b.TempDir(), -1)
	_, js := connect(b, s.ClientURL())
	l := open(b, js, session)
	const n = 1000
	for i := range n {
		if err := l.Append(benchRecord(int64(i) + 1)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		st, err := events.NewStream(session, open(b, js, session))
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
