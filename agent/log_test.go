package agent_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"testing"

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
