package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// LiveOptions says how [Live] runs a dataset through a model.
type LiveOptions struct {
	// Model answers every record; Live names its group by the model's
	// ModelName method when it has one, else by the record's model field.
	Model agent.Model
	// Agent are the options of each record's agent, beside the record's
	// contract (agent.WithOutputSchema): retries, repairs, the output
	// mode, middleware. Without agent.WithOutputRetries a run has one
	// answer and no retry.
	Agent []agent.Option
	// Runs is how many times each record is run (default 1).
	Runs int
	// Concurrency is how many runs go at once (default 1).
	Concurrency int
	// By groups as [Options.By] does; "" groups by model.
	By string
	// Schemas holds the schema files records name by path, as
	// [Options.Schemas].
	Schemas fs.FS
	// Now is the clock that times runs (default time.Now).
	Now func() time.Time
	// Stop, when closed, starts no more runs: the runs in flight end, and
	// Live reports them and those before, with [Report.Partial] set.
	Stop <-chan struct{}
	// Judges reaches the models of the records' judge checks.
	Judges Judges
	// Run, when not nil, is called with each run's verdict as it ends,
	// from one goroutine at a time, in no set order, with how many runs
	// have ended and how many there are: a progress bar's figures.
	Run func(v RunVerdict, done, total int)
}

// RunVerdict is what one run of one record did.
type RunVerdict struct {
	Line  int    `json:"line"`
	ID    string `json:"id,omitempty"`
	Group string `json:"group"`
	Run   int    `json:"run"` // from 1
	// PassedAsWritten: the run's first answer passed as the model wrote
	// it; PassedFirstTry: it passed, as written or mended by the agent's
	// repairs; PassedAfterRetry: an answer of the run passed.
	PassedAsWritten  bool `json:"passedAsWritten"`
	PassedFirstTry   bool `json:"passedFirstTry"`
	PassedAfterRetry bool `json:"passedAfterRetry"`
	// Exhausted: the run ended with an answer that failed its contract
	// (an *enforce.OutputError); NoAnswer: with no answer at all, its
	// thinking having spent the reply (enforce.StageNoAnswer), counted
	// apart.
	Exhausted bool `json:"exhausted"`
	NoAnswer  bool `json:"noAnswer,omitempty"`
	// Error is why the run ended with neither a passing answer nor an
	// exhausted one: a provider's error, a refusal, a cancelled context.
	Error string `json:"error,omitempty"`
	// Answers counts the run's final answers (its ledger rows; 1 without
	// retries).
	Answers int         `json:"answers"`
	Usage   agent.Usage `json:"usage"`
	// Money is what the run's calls cost by the agent's prices
	// (agent.WithPrices); 0 without them.
	Money float64 `json:"money,omitempty"`
	// Cut counts the run's answers stopped at an early verdict
	// (agent.WithEarlyAbort), and CutBytes the bytes of them read: the
	// rest of each was never read, nor paid for in output tokens past the
	// cut. How long a cut answer would have been is not known.
	Cut      int `json:"cut,omitempty"`
	CutBytes int `json:"cutBytes,omitempty"`
	// Latency is how long the run took; in JSON, in nanoseconds.
	Latency time.Duration `json:"latencyNs"`
	// Fields compares the passing answer with the record's expected value.
	Fields *Fields `json:"fields,omitempty"`
	// Checks holds the run's final answer to the record's checks.
	Checks *Checks `json:"checks,omitempty"`
	// Rows are the run's ledger rows (agent.Result.Attempts), one per
	// final answer; nil without retries.
	Rows []enforce.Attempt `json:"rows,omitzero"`
	// InputRules are the verdicts of the rules on the run's input
	// (agent.WithInputRules); nil without them.
	InputRules []enforce.Ruling `json:"inputRules,omitzero"`
}

// Latency is a group's run latencies, in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// liveRecord is a record with a prompt: what Live runs.
type liveRecord struct {
	Record
	Prompt string `json:"prompt"`
}

// Live runs every record of the dataset in r through the model, with
// the record's schema as the contract, and reports by group. Records hold
// `prompt` where an offline dataset holds `output`. A group's Records
// counts records; Runs, the runs of them; its rates are shares of runs. A
// line that is not such a record ends it with an error naming the line
// before any model call; a run's own error (a provider's) is counted in
// its group's RunErrors, not returned. When ctx ends, Live returns
// context.Cause(ctx).
func Live(ctx context.Context, r io.Reader, opts LiveOptions) (*Report, error) {
	if opts.Model == nil {
		return nil, errors.New("eval: Live needs a Model")
	}
	runs, conc := max(opts.Runs, 1), max(opts.Concurrency, 1)
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	modelName := ""
	if n, ok := opts.Model.(interface{ ModelName() string }); ok {
		modelName = n.ModelName()
	}
	j := judge{opts: Options{By: opts.By, Schemas: opts.Schemas}, schemas: map[string]compiled{}, groups: map[string]*group{}}
	type job struct {
		line   int
		rec    liveRecord
		group  string
		agent  *agent.Agent
		run    int
		c      int // its case, in cases
		checks []compiledCheck
		labels *labelSet
	}
	var jobs []job
	cases := []Verdict{} // "cases": [] for an empty dataset, as "groups"
	agents := map[*enforce.Schema]*agent.Agent{}
	checkCache := newCheckCache(opts.Judges)
	digest, err := eachRecord(r, func(line int, text []byte) error {
		var rec liveRecord
		if err := json.Unmarshal(text, &rec); err != nil {
			return fmt.Errorf("eval: line %d: not a record: %w", line, err)
		}
		if len(rec.Schema) == 0 || string(rec.Schema) == "null" {
			return fmt.Errorf(`eval: line %d: the record has no "schema"`, line)
		}
		if rec.Prompt == "" {
			return fmt.Errorf(`eval: line %d: the record has no "prompt"`, line)
		}
		model := rec.Model
		if modelName != "" {
			model = modelName
		}
		checks, err := checkCache.compile(rec.Checks)
		if err != nil {
			return fmt.Errorf("eval: line %d: %w", line, err)
		}
		name, c, err := j.admit(text, model, rec.Schema)
		if err != nil {
			return fmt.Errorf("eval: line %d: %w", line, err)
		}
		cases = append(cases, Verdict{Line: line, ID: rec.ID, Group: name, SchemaError: c.err})
		if c.err != "" {
			return nil
		}
		a := agents[c.plain]
		if a == nil {
			a = agent.New(opts.Model, append(slices.Clip(opts.Agent), agent.WithOutputSchema(c.plain))...)
			agents[c.plain] = a
		}
		for run := 1; run <= runs; run++ {
			jobs = append(jobs, job{line, rec, name, a, run, len(cases) - 1, checks, c.labels})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var (
		ended     int // runs that ended, under mu
		mu        sync.Mutex
		latencies = map[string][]time.Duration{}
		next      = make(chan job)
		wg        sync.WaitGroup
	)
	for range min(conc, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range next {
				if ctx.Err() != nil || stopped(opts.Stop) {
					continue // Live returns the cause, or stopped: no run starts
				}
				start := now()
				res, err := jb.agent.Run(ctx, jb.rec.Prompt)
				v := runVerdict(res, err)
				v.Latency = now().Sub(start)
				v.Line, v.ID, v.Group, v.Run = jb.line, jb.rec.ID, jb.group, jb.run
				out := ""
				if res != nil {
					out = res.Output
				}
				if len(jb.rec.Expected) > 0 {
					v.Fields = compare(jb.rec.Expected, out, v.PassedAfterRetry)
				}
				if len(jb.checks) > 0 {
					v.Checks = runChecks(ctx, jb.checks, out, v.PassedAfterRetry)
				}
				mu.Lock()
				j.group(jb.group).addRun(v)
				j.group(jb.group).addLabels(jb.labels, jb.rec.Expected, out, v.PassedAfterRetry)
				cases[jb.c].Runs = append(cases[jb.c].Runs, v)
				latencies[jb.group] = append(latencies[jb.group], v.Latency)
				ended++
				if opts.Run != nil {
					opts.Run(v, ended, len(jobs))
				}
				mu.Unlock()
			}
		}()
	}
	var cause error
	partial := false
feed:
	for _, jb := range jobs {
		select {
		case next <- jb:
		case <-ctx.Done():
			cause = context.Cause(ctx)
			break feed
		case <-opts.Stop: // nil: never
			partial = true
			break feed
		}
	}
	close(next)
	wg.Wait()
	if cause != nil {
		return nil, cause
	}
	rep := j.report()
	// A worker may have passed over a job when Stop closed before the
	// feeder saw it.
	partial = partial || ended < len(jobs)
	kept := cases[:0]
	for _, c := range cases {
		if partial && c.SchemaError == "" && len(c.Runs) == 0 {
			continue // never run: not part of what finished
		}
		settle(&c)
		kept = append(kept, c)
	}
	rep.Dataset, rep.Cases, rep.Partial = digest, kept, partial
	for i := range rep.Groups {
		g := &rep.Groups[i]
		if ls := latencies[g.Group]; len(ls) > 0 {
			g.LatencyMs = &Latency{P50: quantile(ls, 0.50), P99: quantile(ls, 0.99)}
		}
	}
	return rep, nil
}

// runVerdict reads a run's result and error.
func runVerdict(res *agent.Result, err error) RunVerdict {
	var v RunVerdict
	if res != nil {
		v.Usage, v.Money = res.Usage, res.Money
		v.Answers, v.Rows, v.InputRules = len(res.Attempts), res.Attempts, res.InputRules
		for _, row := range res.Attempts {
			if row.Cut != nil {
				v.Cut++
				v.CutBytes += row.Cut.Bytes
			}
		}
		if len(res.Attempts) > 0 {
			first := res.Attempts[0]
			v.PassedFirstTry = first.Outcome == enforce.OutcomePassed
			v.PassedAsWritten = v.PassedFirstTry && first.Repaired == 0
		}
	}
	var oe *enforce.OutputError
	switch {
	case err == nil:
		v.PassedAfterRetry = true
		if v.Answers == 0 { // no rows: no retries were opted into
			v.Answers, v.PassedFirstTry = 1, true
			v.PassedAsWritten = true
		}
	case errors.As(err, &oe):
		v.Exhausted = oe.Stage != enforce.StageNoAnswer
		v.NoAnswer = !v.Exhausted
		v.Answers = max(v.Answers, 1)
	default:
		v.Error = err.Error()
	}
	return v
}

// stopped says whether stop is closed; a nil stop never is.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// settle orders a live case's runs and sets its verdicts from them
// ([Verdict.Runs]).
func settle(c *Verdict) {
	if c.SchemaError != "" {
		return
	}
	slices.SortFunc(c.Runs, func(a, b RunVerdict) int { return a.Run - b.Run })
	c.PassedAsWritten, c.PassedAfterRepair = true, true
	for _, r := range c.Runs {
		c.PassedAsWritten = c.PassedAsWritten && r.PassedAsWritten
		c.PassedAfterRepair = c.PassedAfterRepair && r.PassedFirstTry
		if r.PassedFirstTry || c.Stage != "" {
			continue
		}
		switch {
		case len(r.Rows) > 0:
			c.Stage = r.Rows[0].Stage
			c.Issues = []enforce.Issue{{Path: r.Rows[0].Path, Message: r.Rows[0].Error}}
		case r.Error != "":
			c.Issues = []enforce.Issue{{Keyword: "error", Message: r.Error}}
		}
	}
}

// addRun counts a run's verdict in g.
func (g *group) addRun(v RunVerdict) {
	g.Runs++
	if v.PassedAsWritten {
		g.PassedAsWritten++
	}
	if v.PassedFirstTry {
		g.PassedFirstTry++
		g.PassedAfterRepair++
	}
	if v.PassedAfterRetry {
		g.PassedAfterRetry++
	}
	if v.Exhausted {
		g.Exhausted++
	}
	if v.NoAnswer {
		g.NoAnswer++
	}
	if v.Error != "" {
		g.RunErrors++
	}
	g.Tokens += max(v.Usage.InputTokens, 0) + max(v.Usage.OutputTokens, 0)
	g.Money += v.Money
	g.Cut += v.Cut
	g.CutBytes += v.CutBytes
	g.addRules(v)
	g.addChecks(v.Checks)
	if v.Fields != nil {
		g.FieldsCompared += v.Fields.Compared
		g.FieldsMatched += v.Fields.Matched
		for _, p := range v.Fields.Wrong {
			g.wrong[p]++
		}
	}
}

// quantile is the q-quantile of ds in milliseconds, by the nearest rank.
func quantile(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	i = min(max(i, 0), len(s)-1)
	return float64(s[i].Microseconds()) / 1000
}
