package agent_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/hashicorp/go-hclog"
)

func TestLoggerWritesOneLinePerRow(t *testing.T) {
	var buf bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Debug, JSONFormat: true})
	m := agenttest.NewModel(t, agenttest.Reply(prose), agenttest.Reply(missing), agenttest.Reply(valid))
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithLogger(logger))

	res, err := a.Run(t.Context(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}

	type line struct {
		Attempt   int    `json:"attempt"`
		Iteration int    `json:"iteration"`
		Outcome   string `json:"outcome"`
		Stage     string `json:"stage"`
		Hash      string `json:"correctiveMessageHash"`
	}
	var got []line
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var fields map[string]any
		if err := json.Unmarshal(sc.Bytes(), &fields); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if fields["@message"] != "output attempt" {
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		got = append(got, l)
	}
	var want []line
	for _, r := range res.Attempts {
		want = append(want, line{Attempt: r.Attempt, Iteration: r.Iteration, Outcome: string(r.Outcome), Stage: string(r.Stage), Hash: r.CorrectiveMessageHash})
	}
	if len(want) != 3 {
		t.Fatalf("the run has %d rows, want 3", len(want))
	}
	if !slices.Equal(got, want) {
		t.Errorf("logged rows = %+v, want %+v", got, want)
	}
}

func TestALoggedRowHasTheMembersOfItsJSON(t *testing.T) {
	t.Run("json-parse (no path), schema-validate (a path), passed", func(t *testing.T) {
		loggedRowsMatchJSON(t, false, false, agenttest.Reply(prose), agenttest.Reply(missing), agenttest.Reply(valid))
	})
	t.Run("truncated, then withheld", func(t *testing.T) {
		loggedRowsMatchJSON(t, true, false, agenttest.Reply(cut).WithStop(agent.StopLength), agenttest.Reply("No.").WithStop(agent.StopRefusal))
	})
	t.Run("cut early while streamed, then passed", func(t *testing.T) {
		loggedRowsMatchJSON(t, false, true, agenttest.Chunks(agent.Chunk{Usage: agent.Usage{InputTokens: 90, OutputTokens: 1}}, agent.Chunk{Text: prose}), agenttest.Reply(valid))
	})
}

// loggedRowsMatchJSON runs steps with retries (on a model that streams
// them, with stream) and checks that each row's
// log line has the members of the row's JSON.
func loggedRowsMatchJSON(t *testing.T, wantErr, stream bool, steps ...agenttest.Step) {
	t.Helper()
	var buf bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Debug, JSONFormat: true})
	// Each row has its cost: tokens from the replies, and a latency from a
	// clock that moves 5ms a reading.
	for i := range steps {
		steps[i] = steps[i].WithUsage(100+i, 10+i)
	}
	var m agent.Model
	if stream {
		m = agenttest.NewStreamingModel(t, steps...)
	} else {
		m = agenttest.NewModel(t, steps...)
	}
	at := time.Unix(1754590940, 0)
	clock := func() time.Time { at = at.Add(5 * time.Millisecond); return at }
	a := agent.New(m, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2), agent.WithLogger(logger), agent.WithClock(clock))
	res, err := a.Run(t.Context(), "Weather in Paris?")
	if (err != nil) != wantErr {
		t.Fatalf("err = %v", err)
	}
	var got [][]string
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var fields map[string]any
		if err := json.Unmarshal(sc.Bytes(), &fields); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if fields["@message"] != "output attempt" {
			continue
		}
		got = append(got, keys(fields))
	}
	var want [][]string
	for _, r := range res.Attempts {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatal(err)
		}
		want = append(want, keys(fields))
	}
	if len(want) != len(steps) || !reflect.DeepEqual(got, want) {
		t.Errorf("logged members = %q, want the rows' JSON members %q", got, want)
	}
}

// keys lists a log line's or row's members, without hclog's own.
func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		if !strings.HasPrefix(k, "@") {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}
