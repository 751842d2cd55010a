package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/agent/agenttest"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/events"
)

// namedModel is a scripted model that names itself as an adapter does.
type namedModel struct {
	*agenttest.Model
	provider, name string
}

func (m namedModel) ProviderName() string { return m.provider }
func (m namedModel) ModelName() string    { return m.name }

func noDelay(int, error) time.Duration { return 0 }

func named(t *testing.T, provider, name string, steps ...agenttest.Step) namedModel {
	t.Helper()
	return namedModel{agenttest.NewModel(t, steps...), provider, name}
}

// models is who wrote each row, as "provider/model".
func models(rows []enforce.Attempt) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Provider+"/"+r.Model)
	}
	return out
}

func TestEscalationMovesOnAfterTwoFailedRowsAndEachRowNamesItsModel(t *testing.T) {
	a := named(t, "openai", "small",
		agenttest.Reply(missing).WithUsage(100, 10),
		agenttest.Reply(missing).WithUsage(150, 12))
	b := named(t, "anthropic", "large", agenttest.Reply(valid).WithUsage(300, 20))
	s := newStream(t)
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, AfterFailures: 2}),
		agent.WithEvents(s))
	res, err := ag.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := models(res.Attempts), []string{"openai/small", "openai/small", "anthropic/large"}; !slices.Equal(got, want) {
		t.Errorf("rows written by %v, want %v", got, want)
	}
	if got, want := rows(res.Attempts), []row{
		{Attempt: 1, Iteration: 1, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/tempC", Hashed: true},
		{Attempt: 2, Iteration: 2, Outcome: enforce.OutcomeRetried, Stage: enforce.StageSchemaValidate, Path: "/tempC", Hashed: true},
		{Attempt: 3, Iteration: 3, Outcome: enforce.OutcomePassed},
	}; !slices.Equal(got, want) {
		t.Errorf("rows\n got %+v\nwant %+v", got, want)
	}
	if got, want := res.Models, []agent.ModelSpend{
		{Provider: "openai", Model: "small", Requests: 2, Usage: agent.Usage{InputTokens: 250, OutputTokens: 22}},
		{Provider: "anthropic", Model: "large", Requests: 1, Usage: agent.Usage{InputTokens: 300, OutputTokens: 20}},
	}; !slices.Equal(got, want) {
		t.Errorf("Models\n got %+v\nwant %+v", got, want)
	}
	if got, want := res.Usage, (agent.Usage{InputTokens: 550, OutputTokens: 42}); got != want {
		t.Errorf("Usage = %+v, want %+v", got, want)
	}
	// The conversation went with the run: B is sent both failed answers
	// and both corrective turns.
	req := b.Requests()[0]
	var roles []agent.Role
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	if want := []agent.Role{agent.RoleSystem, agent.RoleUser, agent.RoleAssistant, agent.RoleUser, agent.RoleAssistant, agent.RoleUser}; !slices.Equal(roles, want) {
		t.Errorf("the next model was sent %v, want %v", roles, want)
	}
	// The ledger events name the model too.
	_, ns := methods(t, s)
	var byModel []string
	for _, n := range ns {
		if n.Method == events.MethodSchemaRetry {
			var p events.SchemaRetry
			if err := json.Unmarshal(n.Params, &p); err != nil {
				t.Fatal(err)
			}
			byModel = append(byModel, p.Provider+"/"+p.Model)
		}
	}
	if want := []string{"openai/small", "openai/small"}; !slices.Equal(byModel, want) {
		t.Errorf("output/schemaRetry named %v, want %v", byModel, want)
	}
}

func TestEscalationSpendsTheRetriesAsGivenAcrossTheChain(t *testing.T) {
	// Two retries in all: one spent on A, one on B; B's second failure
	// has none left anywhere.
	a := named(t, "p", "a", agenttest.Reply(missing))
	b := named(t, "p", "b", agenttest.Reply(missing), agenttest.Reply(prose))
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(2),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, AfterFailures: 1}))
	res, err := ag.Run(context.Background(), "Weather?")
	if !errors.Is(err, enforce.ErrExhausted) {
		t.Fatalf("err = %v, want enforce.ErrExhausted", err)
	}
	if got, want := models(res.Attempts), []string{"p/a", "p/b", "p/b"}; !slices.Equal(got, want) {
		t.Errorf("rows written by %v, want %v", got, want)
	}
	if got := res.Attempts[2]; got.Outcome != enforce.OutcomeExhausted || got.Reason != "" {
		t.Errorf("last row %+v, want exhausted with no retries left", got)
	}
}

func TestEscalationByTheCallersFunctionOfTheRow(t *testing.T) {
	a := named(t, "p", "a", agenttest.Reply(prose), agenttest.Reply(missing))
	b := named(t, "p", "b", agenttest.Reply(valid))
	var seen []enforce.Stage
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, OnRow: func(r enforce.Attempt) bool {
			seen = append(seen, r.Stage)
			return r.Stage == enforce.StageSchemaValidate // JSON it can fix; a wrong shape it cannot
		}}))
	res, err := ag.Run(context.Background(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := models(res.Attempts), []string{"p/a", "p/a", "p/b"}; !slices.Equal(got, want) {
		t.Errorf("rows written by %v, want %v", got, want)
	}
	if want := []enforce.Stage{enforce.StageJSONParse, enforce.StageSchemaValidate}; !slices.Equal(seen, want) {
		t.Errorf("OnRow saw %v, want %v", seen, want)
	}
}

func TestEscalationOnAProviderErrorAfterTheModelRetries(t *testing.T) {
	limited := &agent.ProviderError{System: "openai", Kind: events.KindRateLimit, HTTPStatus: 429}
	a := named(t, "openai", "a", agenttest.Fail(limited), agenttest.Fail(limited))
	b := named(t, "anthropic", "b", agenttest.Reply(valid).WithUsage(10, 5))
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithModelRetry(agent.RetryPolicy{MaxAttempts: 2, Backoff: noDelay}),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, OnError: func(err error) bool {
			var pe *agent.ProviderError
			return errors.As(err, &pe) && pe.Kind == events.KindRateLimit
		}}))
	res, err := ag.Run(context.Background(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := models(res.Attempts), []string{"anthropic/b"}; !slices.Equal(got, want) {
		t.Errorf("rows written by %v, want %v (a failed call writes none)", got, want)
	}
	if got := []int{res.Models[0].Requests, res.Models[1].Requests}; !slices.Equal(got, []int{2, 1}) {
		t.Errorf("requests per model %v, want [2 1]: A's tries, then B's", got)
	}
}

func TestEscalationOnErrorThatSaysNoEndsTheRunWithTheError(t *testing.T) {
	bad := &agent.ProviderError{System: "openai", Kind: events.KindBadRequest, HTTPStatus: 400}
	a := named(t, "openai", "a", agenttest.Fail(bad))
	b := named(t, "anthropic", "b")
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, OnError: func(error) bool { return false }}))
	if _, err := ag.Run(context.Background(), "Weather?"); !errors.Is(err, agent.ErrModel) {
		t.Fatalf("err = %v, want agent.ErrModel", err)
	}
	if n := b.Calls(); n != 0 {
		t.Errorf("the next model was called %d times, want 0", n)
	}
}

func TestEscalationOnRefusalSendsTheNextModelNoRefusal(t *testing.T) {
	a := named(t, "p", "a", agenttest.Reply("I can't help with that.").WithStop(agent.StopRefusal))
	b := named(t, "p", "b", agenttest.Reply(valid))
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(1),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, OnRefusal: true}))
	res, err := ag.Run(context.Background(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := models(res.Attempts), []string{"p/b"}; !slices.Equal(got, want) {
		t.Errorf("rows written by %v, want %v (a refusal moved on from writes none)", got, want)
	}
	for _, m := range b.Requests()[0].Messages {
		if strings.Contains(m.Content, "can't help") {
			t.Errorf("the next model was sent the refusal: %q", m.Content)
		}
	}
	if n := len(res.Messages); n != 4 { // system, user, the refusal, the answer
		t.Errorf("Result.Messages has %d messages, want 4 (the refusal kept)", n)
	}
}

func TestEscalationOnTheLastModelGoesOnAsWithout(t *testing.T) {
	a := named(t, "p", "a", agenttest.Reply(missing))
	b := named(t, "p", "b", agenttest.Reply(missing), agenttest.Reply(valid))
	ag := agent.New(a, agent.WithOutputSchema(weatherSchema(t)), agent.WithOutputRetries(3),
		agent.WithEscalation(agent.Escalation{Models: []agent.Model{b}, AfterFailures: 1}))
	res, err := ag.Run(context.Background(), "Weather?")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := models(res.Attempts), []string{"p/a", "p/b", "p/b"}; !slices.Equal(got, want) {
		t.Errorf("rows written by %v, want %v", got, want)
	}
}

func TestEscalationOptionsAreChecked(t *testing.T) {
	m := agent.ModelFunc(func(context.Context, agent.Request) (agent.Response, error) {
		t.Error("the model was called")
		return agent.Response{}, nil
	})
	for _, tc := range []struct {
		name string
		opts []agent.Option
	}{
		{"no models", []agent.Option{agent.WithEscalation(agent.Escalation{AfterFailures: 1})}},
		{"a nil model", []agent.Option{agent.WithEscalation(agent.Escalation{Models: []agent.Model{nil}, OnRefusal: true})}},
		{"no rule", []agent.Option{agent.WithEscalation(agent.Escalation{Models: []agent.Model{m}})}},
		{"AfterFailures too high", []agent.Option{agent.WithOutputRetries(1), agent.WithEscalation(agent.Escalation{Models: []agent.Model{m}, AfterFailures: enforce.MaxRetries + 1})}},
		{"AfterFailures without retries", []agent.Option{agent.WithEscalation(agent.Escalation{Models: []agent.Model{m}, AfterFailures: 1})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]agent.Option{agent.WithOutputSchema(weatherSchema(t))}, tc.opts...)
			if _, err := agent.New(m, opts...).Run(context.Background(), "x"); !errors.Is(err, agent.ErrInvalidOption) {
				t.Errorf("err = %v, want ErrInvalidOption", err)
			}
		})
	}
}
