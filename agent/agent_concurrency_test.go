package agent_test

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// echoModel answers from the request alone, so many runs can share it: the
// first answer of a run is prose; after the corrective turn it is the
// Weather whose city is the run's input and whose temperature is the
// input's length.
var echoModel = agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
	var input string
	corrected := false
	for _, m := range req.Messages {
		switch {
		case m.Role == agent.RoleUser && input == "":
			input = m.Content
		case m.Role == agent.RoleUser:
			corrected = true
		}
	}
	if !corrected {
		return reply("Let me think about " + input), nil
	}
	return reply(fmt.Sprintf(`{"city":%q,"tempC":%d}`, input, len(input))), nil
})

func reply(s string) agent.Response {
	return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: s}, Usage: agent.Usage{InputTokens: 1, OutputTokens: 1}}
}

func TestOneAgentServesConcurrentRuns(t *testing.T) {
	a := agent.New(echoModel, agent.WithOutputRetries(1))
	const n = 50
	type result struct {
		w    Weather
		rows []row
		err  error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, res, err := agent.RunTyped[Weather](t.Context(), a, "city-"+strconv.Itoa(i))
			results[i] = result{w: w, rows: rows(res.Attempts), err: err}
		}()
	}
	wg.Wait()

	wantRows := []row{
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageJSONParse, Hashed: true},
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomePassed},
	}
	for i, r := range results {
		city := "city-" + strconv.Itoa(i)
		if r.err != nil {
			t.Errorf("run %d: %v", i, r.err)
			continue
		}
		if got, want := r.w, (Weather{City: city, TempC: len(city)}); got != want {
			t.Errorf("run %d: value = %+v, want %+v", i, got, want)
		}
		if !reflect.DeepEqual(r.rows, wantRows) {
			t.Errorf("run %d: rows = %+v, want %+v", i, r.rows, wantRows)
		}
	}
}

// toolModel asks for two tool calls, then answers with the run's input as
// the city once it has the tools' results.
var toolModel = agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role != agent.RoleTool {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
			{ID: "a", Name: "temp", Arguments: []byte(`{}`)},
			{ID: "b", Name: "temp", Arguments: []byte(`{}`)},
		}}}, nil
	}
	var input string
	for _, m := range req.Messages {
		if m.Role == agent.RoleUser {
			input = m.Content
			break
		}
	}
	return reply(fmt.Sprintf(`{"city":%q,"tempC":%s}`, input, last.Content)), nil
})

// settledGoroutines lets goroutines that are finishing exit, and returns
// how many are left once there are at most want, or after a bounded
// number of yields.
func settledGoroutines(want int) int {
	// Goroutines that have finished their work (wg.Done) may still be
	// exiting; on a loaded machine, under -race, that can take a while.
	// The deadline only bounds a failing test.
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(30 * time.Second); n > want && time.Now().Before(deadline); {
		runtime.Gosched()
		n = runtime.NumGoroutine()
	}
	return n
}

// TestTenThousandConcurrentRuns holds 10,000 runs of one Agent inside the
// model at once, measures the memory they hold, and checks that every
// goroutine the runs started (parallel tool calls) is gone afterwards.
func TestTenThousandConcurrentRuns(t *testing.T) {
	const n = 10_000
	var arrived sync.WaitGroup
	arrived.Add(n)
	release := make(chan struct{})
	tool := agent.NewTool("temp", "", func(context.Context, struct{}) (string, error) { return "21", nil })
	gate := agent.ModelFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		if len(req.Messages) == 2 { // system and user: the run's first call
			arrived.Done()
			<-release
		}
		return toolModel(ctx, req)
	})
	a := agent.New(gate, agent.WithTools(tool), agent.WithParallelTools(0))

	before := runtime.NumGoroutine()
	runtime.GC()
	var m0, m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m0)

	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, _, err := agent.RunTyped[Weather](t.Context(), a, "c"+strconv.Itoa(i))
			if err == nil && w.City != "c"+strconv.Itoa(i) {
				err = fmt.Errorf("value = %+v", w)
			}
			errs[i] = err
		}()
	}
	arrived.Wait()
	runtime.ReadMemStats(&m1) // every run is alive, inside its first model call
	close(release)
	wg.Wait()
	runtime.ReadMemStats(&m2)

	var failed []string
	for i, err := range errs {
		if err != nil {
			failed = append(failed, fmt.Sprintf("run %d: %v", i, err))
		}
	}
	if len(failed) > 0 {
		t.Fatalf("%d runs failed, first: %s", len(failed), failed[0])
	}
	held := (int64(m1.HeapInuse+m1.StackInuse) - int64(m0.HeapInuse+m0.StackInuse)) / n
	t.Logf("held per run in flight: %d B (heap %d B, stack %d B); allocated per run: %d B in %d objects",
		held, (int64(m1.HeapInuse)-int64(m0.HeapInuse))/n, (int64(m1.StackInuse)-int64(m0.StackInuse))/n,
		(m2.TotalAlloc-m0.TotalAlloc)/n, (m2.Mallocs-m0.Mallocs)/n)

	if after := settledGoroutines(before); after > before {
		buf := make([]byte, 1<<16)
		stacks := string(buf[:runtime.Stack(buf, true)])
		t.Errorf("goroutines: %d before, %d after the runs\n%s", before, after, strings.TrimSpace(stacks))
	}
}

func TestModelsMayAppendToTheirRequest(t *testing.T) {
	// Run under -race: the agent's tool specs are shared by every request,
	// so an append must not write into them.
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	model := agent.ModelFunc(func(_ context.Context, req agent.Request) (agent.Response, error) {
		tools := append(req.Tools, agent.ToolSpec{Name: "builtin-search"})
		msgs := append(req.Messages, agent.Message{Role: agent.RoleSystem, Content: "provider note"})
		return reply(fmt.Sprintf("%d tools, %d messages", len(tools), len(msgs))), nil
	})
	a := agent.New(model, agent.WithTools(
		agent.NewTool("a", "", noop), agent.NewTool("b", "", noop), agent.NewTool("c", "", noop)))
	const n = 8
	outputs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := a.Run(t.Context(), "hi")
			if err != nil {
				t.Error(err)
				return
			}
			outputs[i] = res.Output
		}()
	}
	wg.Wait()
	for i, got := range outputs {
		if want := "4 tools, 2 messages"; got != want {
			t.Errorf("run %d: Output = %q, want %q", i, got, want)
		}
	}
}
