package eval_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/eval"
)

// named is a scripted model with a name, as the adapters have.
type named struct {
	agent.ModelFunc
	name string
}

func (m named) ModelName() string { return m.name }

// scripted answers by the record's prompt: "oslo" passes at once, "lima"
// leaves out tempC the first time and passes when corrected, "never"
// always leaves it out, "down" fails as a provider.
func scripted(name string) agent.Model {
	return named{name: name, ModelFunc: func(_ context.Context, req agent.Request) (agent.Response, error) {
		prompt, answers := "", 0
		for _, m := range req.Messages {
			switch {
			case m.Role == agent.RoleUser && prompt == "":
				prompt = m.Content
			case m.Role == agent.RoleAssistant:
				answers++
			}
		}
		text := `{"city":"Oslo","tempC":3}`
		switch {
		case prompt == "down":
			return agent.Response{}, errors.New("503 from the provider")
		case prompt == "never", prompt == "lima" && answers == 0:
			text = `{"city":"Lima"}`
		}
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: text}, Usage: agent.Usage{InputTokens: 10, OutputTokens: 5}}, nil
	}}
}

func liveDataset(prompts ...string) string {
	var lines []string
	for _, p := range prompts {
		lines = append(lines, `{"id":"`+p+`","schema":`+cityJSON+`,"prompt":"`+p+`","expected":{"city":"Oslo"}}`)
	}
	return strings.Join(lines, "\n")
}

func TestLiveCountsFirstTriesRetriesAndExhaustedRuns(t *testing.T) {
	tick := time.Unix(0, 0)
	clock := func() time.Time { tick = tick.Add(10 * time.Millisecond); return tick }
	var vs []eval.RunVerdict
	rep, err := eval.Live(t.Context(), strings.NewReader(liveDataset("oslo", "lima", "never", "down")), eval.LiveOptions{
		Model: scripted("m"),
		// 10 in and 5 out at 1 and 2 a million: 20 millionths a call.
		Agent: []agent.Option{agent.WithOutputRetries(1), agent.WithPrices(map[string]agent.Price{"m": {Input: 1, Output: 2}})},
		Runs:  2,
		Now:   clock,
		Run: func(v eval.RunVerdict, done, total int) {
			vs = append(vs, v)
			if done != len(vs) || total != 8 {
				t.Errorf("progress %d/%d after %d runs, want %d/8", done, total, len(vs), len(vs))
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 1 || rep.Records != 4 {
		t.Fatalf("report = %+v, want 4 records in one group", rep)
	}
	g := rep.Groups[0]
	if g.Group != "m" || g.Runs != 8 || g.PassedFirstTry != 2 || g.PassedAsWritten != 2 || g.PassedAfterRetry != 4 || g.Exhausted != 2 || g.RunErrors != 2 {
		t.Errorf("group = %+v, want m: 8 runs, 2 first-try (oslo), 4 after retry (oslo, lima), 2 exhausted (never), 2 errors (down)", g)
	}
	// oslo 1 call, lima 2, never 2 (one retry), down none with usage.
	if want := 2 * (1 + 2 + 2) * 15; g.Tokens != want {
		t.Errorf("tokens = %d, want %d", g.Tokens, want)
	}
	if want := 2 * (1 + 2 + 2) * 20e-6; g.Money < want-1e-12 || g.Money > want+1e-12 {
		t.Errorf("money = %v, want %v", g.Money, want)
	}
	// Each run reads the clock twice, 10 ms apart.
	if g.LatencyMs == nil || g.LatencyMs.P50 != 10 || g.LatencyMs.P99 != 10 {
		t.Errorf("latency = %+v, want p50 and p99 of 10 ms", g.LatencyMs)
	}
	if r, _ := g.Rate(eval.AfterRetry); r != 0.5 {
		t.Errorf("after-retry rate = %v, want 0.5", r)
	}
	if g.FieldsCompared != 8 || g.FieldsMatched != 4 {
		t.Errorf("fields = %d compared, %d matched; want 8 and 4 (the passing runs hold Oslo)", g.FieldsCompared, g.FieldsMatched)
	}
	if len(vs) != 8 || vs[0].ID != "oslo" || vs[0].Run != 1 || vs[1].Run != 2 {
		t.Errorf("run verdicts = %+v, want 8, the runs of each record in order at concurrency 1", vs)
	}
}

func TestLiveRunsConcurrentlyAndCountsEveryRun(t *testing.T) {
	var mu sync.Mutex
	inFlight, most, opened := 0, 0, false
	gate := make(chan struct{})
	base := scripted("m").(named)
	m := named{name: "m", ModelFunc: func(ctx context.Context, req agent.Request) (agent.Response, error) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == 3 && most == 3 && !opened {
			opened = true
			close(gate) // three at once: all may go on
		}
		mu.Unlock()
		<-gate
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		return base.ModelFunc(ctx, req)
	}}
	rep, err := eval.Live(t.Context(), strings.NewReader(liveDataset("oslo", "oslo", "oslo")), eval.LiveOptions{Model: m, Runs: 4, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if g := rep.Groups[0]; g.Runs != 12 || g.PassedFirstTry != 12 || most != 3 {
		t.Errorf("runs %d, first-try %d, most in flight %d; want 12, 12, 3", g.Runs, g.PassedFirstTry, most)
	}
}

func TestLiveRefusesARecordWithoutAPromptBeforeAnyCall(t *testing.T) {
	calls := 0
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		calls++
		return agent.Response{}, nil
	})
	data := liveDataset("oslo") + "\n" + `{"schema":{},"output":"1"}`
	_, err := eval.Live(t.Context(), strings.NewReader(data), eval.LiveOptions{Model: m})
	if err == nil || !strings.Contains(err.Error(), `line 2: the record has no "prompt"`) || calls != 0 {
		t.Errorf("Live = %v after %d calls, want line 2 refused before any call", err, calls)
	}
}

func TestLiveStopsWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("stop")
	n := 0
	_, err := eval.Live(ctx, strings.NewReader(liveDataset("oslo", "oslo", "oslo", "oslo")), eval.LiveOptions{
		Model: scripted("m"),
		Run: func(eval.RunVerdict, int, int) {
			if n++; n == 2 {
				cancel(stop)
			}
		},
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("Live after cancel = %v after %d runs, want the cause after 2: no run once ctx ended", err, n)
	}
}

// A streamed answer cut at its early verdict is counted, with the bytes
// of it that were read.
func TestLiveCountsTheAnswersCutEarly(t *testing.T) {
	m := agenttest.NewStreamingModel(t,
		agenttest.Chunks(agent.Chunk{Text: `{"city":`}, agent.Chunk{Text: `5, "tempC": 3}`}), // a number for the city: doomed at the byte that ends it
		agenttest.Chunks(agent.Chunk{Text: `{"city":"Oslo","tempC":3}`}),
	)
	rep, err := eval.Live(t.Context(), strings.NewReader(liveDataset("oslo")), eval.LiveOptions{Model: m, Agent: []agent.Option{agent.WithOutputRetries(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if g := rep.Groups[0]; g.Cut != 1 || g.CutBytes != len(`{"city":5,`) || g.PassedAfterRetry != 1 {
		t.Errorf("group = %+v, want one answer cut after %d bytes, then a pass", g, len(`{"city":5,`))
	}
}

// Stop closed, no run starts; the runs in flight end and are counted,
// and the report says it is partial.
func TestLiveStoppedFinishesTheRunsInFlightAndReportsThem(t *testing.T) {
	stop, release, slowStarted := make(chan struct{}), make(chan struct{}), make(chan struct{})
	base := scripted("m").(named)
	m := named{name: "m", ModelFunc: func(ctx context.Context, req agent.Request) (agent.Response, error) {
		for _, msg := range req.Messages {
			switch {
			case msg.Role != agent.RoleUser:
				continue
			case msg.Content == "slow":
				close(slowStarted)
				<-release // in flight when Stop closes
			case msg.Content == "oslo":
				<-slowStarted // oslo ends with slow in flight
			}
			break
		}
		return base.ModelFunc(ctx, req)
	}}
	var ended []string
	rep, err := eval.Live(t.Context(), strings.NewReader(liveDataset("oslo", "slow", "lima", "never")), eval.LiveOptions{
		Model: m, Concurrency: 2, Stop: stop,
		Run: func(v eval.RunVerdict, done, total int) {
			ended = append(ended, v.ID)
			if v.ID == "oslo" {
				close(stop)
				close(release)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Partial || rep.Groups[0].Runs != 2 || len(rep.Cases) != 2 || rep.Cases[1].ID != "slow" || len(rep.Cases[1].Runs) != 1 {
		t.Errorf("report: partial %v, %d runs, cases %+v; want partial, the 2 runs that started (oslo, slow), their cases only", rep.Partial, rep.Groups[0].Runs, rep.Cases)
	}
	if strings.Join(ended, " ") != "oslo slow" {
		t.Errorf("runs ended: %v, want oslo and slow", ended)
	}
}
