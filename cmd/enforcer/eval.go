package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/eval"
)

// evalCmd is `enforcer eval`: the figures of a dataset of recorded
// answers (eval.Offline), as a table, JSON or Markdown; exitFail when a
// gate (-fail-under) fails. With -compare it holds a new JSON report
// against an old one instead, exitFail on a regression.
func evalCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("eval")
	repair := fs.String("repair", "", "repairs to try on an answer that fails as written, as check's -repair")
	by := fs.String("by", "", `the record field to group by (default "model")`)
	asJSON := fs.Bool("json", false, "print the report as JSON (the contract docs/eval.md describes)")
	asMD := fs.Bool("md", false, "print the report as a Markdown table, for a pull request")
	htmlFile := fs.String("html", "", "also write the report as one self-contained HTML page with charts to this file; with -compare, NEW's page opening with what moved")
	failUnder := fs.String("fail-under", "", "RATE=MIN: exit 1 when a group's rate (as-written or after-repair) is under MIN (0..1); a bare MIN gates the overall as-written rate")
	junitFile := fs.String("junit", "", "also write the cases as JUnit XML to this file, for CI (a test case per record, a suite per group)")
	compare := fs.Bool("compare", false, "compare two -json reports, OLD and NEW: what moved, exit 1 on a regression")
	tolerance := fs.Float64("tolerance", 0.01, "with -compare: how far (a share, 0.01 for one point) a rate may fall before it is a regression")
	model := fs.String("model", "", "run the dataset's prompts live through this model (records hold prompt, not output)")
	provider := fs.String("provider", "openai", "with -model or judge checks: the adapter, openai, anthropic or gemini; its key is read from OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY")
	baseURL := fs.String("base-url", "", "with -model or judge checks: the provider's base URL, for an OpenAI-compatible server (Ollama, vLLM, llama.cpp)")
	retries := fs.Int("retries", 2, fmt.Sprintf("with -model: the output retries of each run (0..%d)", enforce.MaxRetries))
	runs := fs.Int("runs", 1, "with -model: how many times each record is run")
	concurrency := fs.Int("concurrency", 1, "with -model: how many runs go at once")
	prices := fs.String("prices", "", `with -model or judge checks: a JSON file of prices per million tokens by model name, {"gpt-4o-mini": {"input": 0.15, "cachedInput": 0.075, "output": 0.6}}, as agent.WithPrices`)
	files, err := parseAll(fs, args, []string{"DATASET", "| -compare OLD NEW"})
	if err != nil {
		return 0, err
	}
	if *compare {
		if err := wantOperands(fs, files, []string{"OLD", "NEW"}); err != nil {
			return 0, err
		}
		return compareCmd(files[0], files[1], *tolerance, *htmlFile, stdout)
	}
	if err := wantOperands(fs, files, []string{"DATASET"}); err != nil {
		return 0, err
	}
	if *asJSON && *asMD {
		return 0, errors.New("eval: -json and -md: choose one")
	}
	repairs, err := enforce.ParseRepairs(*repair)
	if err != nil {
		return 0, fmt.Errorf("eval: -repair: %w", err)
	}
	gate, err := parseGate(*failUnder)
	if err != nil {
		return 0, err
	}
	var in io.Reader = stdin
	dir := "."
	if files[0] != "-" {
		if fi, err := os.Stat(files[0]); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			return 0, fmt.Errorf("eval: %s is a FIFO; pipe it to standard input (-) instead", files[0])
		}
		f, err := os.Open(files[0])
		if err != nil {
			return 0, fmt.Errorf("eval: %w", err)
		}
		defer f.Close()
		in, dir = f, filepath.Dir(files[0])
	}
	// A judge check names its model as -model names a live run's, and
	// reaches it the same way: -provider, -base-url, the key from the
	// provider's variable, priced by -prices.
	judges := eval.Judges{Model: func(name string) (agent.Model, error) {
		return liveModel(ctx, *provider, name, *baseURL, getenv)
	}}
	var priced []agent.Option
	if *prices != "" {
		p, err := readPrices(*prices)
		if err != nil {
			return 0, err
		}
		priced = []agent.Option{agent.WithPrices(p)}
		judges.Agent = priced
	}
	var rep *eval.Report
	if *model != "" {
		switch {
		case *retries < 0 || *retries > enforce.MaxRetries:
			return 0, fmt.Errorf("eval: -retries %d is not in 0..%d", *retries, enforce.MaxRetries)
		case *runs < 1 || *concurrency < 1:
			return 0, errors.New("eval: -runs and -concurrency are at least 1")
		}
		m, err := liveModel(ctx, *provider, *model, *baseURL, getenv)
		if err != nil {
			return 0, err
		}
		agentOpts := append([]agent.Option{agent.WithOutputRetries(*retries), agent.WithRepairs(repairs)}, priced...)
		runCtx, stop, end := stopOnSignal(ctx)
		defer end()
		if rep, err = eval.Live(runCtx, in, eval.LiveOptions{
			Model:       m,
			Agent:       agentOpts,
			Runs:        *runs,
			Concurrency: *concurrency,
			By:          *by,
			Schemas:     os.DirFS(dir),
			Stop:        stop,
			Run:         progress(stderr),
			Judges:      judges,
		}); err != nil {
			return 0, fmt.Errorf("eval: %s: %s", files[0], redact(err.Error(), getenv(providers[*provider])))
		}
	} else if rep, err = eval.Offline(ctx, in, eval.Options{Repairs: repairs, By: *by, Schemas: os.DirFS(dir), Judges: judges}); err != nil {
		return 0, fmt.Errorf("eval: %s: %s", files[0], redact(err.Error(), getenv(providers[*provider])))
	}
	if *htmlFile != "" {
		if err := writeFile("-html", *htmlFile, rep, eval.WriteHTML); err != nil {
			return 0, err
		}
	}
	if *junitFile != "" {
		if err := writeFile("-junit", *junitFile, rep, eval.WriteJUnit); err != nil {
			return 0, err
		}
	}
	switch {
	case *asJSON:
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	case *asMD:
		writeMarkdown(stdout, rep)
		writeRules(stdout, rep, true)
	case *model != "":
		writeLiveTable(stdout, rep)
		writeRules(stdout, rep, false)
	default:
		writeTable(stdout, rep)
		writeRules(stdout, rep, false)
	}
	if rep.Partial {
		runs := 0
		for _, g := range rep.Groups {
			runs += g.Runs
		}
		// A partial report passes no gate: what did not run is unknown.
		fmt.Fprintf(stdout, "PARTIAL: stopped by a signal; the figures are of the %s that ended\n", count(runs, "run"))
		return exitFail, nil
	}
	if gate.rate == "" {
		return exitOK, nil
	}
	var low []eval.Group
	if gate.overall {
		low, err = (&eval.Report{Groups: []eval.Group{total(rep)}}).Below(gate.rate, gate.min)
	} else {
		low, err = rep.Below(gate.rate, gate.min)
	}
	if err != nil {
		return 0, err
	}
	if len(low) == 0 {
		return exitOK, nil
	}
	var names []string
	for _, g := range low {
		r, _ := g.Rate(gate.rate)
		names = append(names, fmt.Sprintf("%s (%s)", groupName(g.Group), percent(r)))
	}
	// The failing groups go to stdout too: a gate's reason is its output.
	fmt.Fprintf(stdout, "FAIL: %s under %s: %s\n", gate.rate, percent(gate.min), strings.Join(names, ", "))
	return exitFail, nil
}

// gate is a parsed -fail-under.
type gate struct {
	rate    eval.Rate
	min     float64
	overall bool // of all records, not of each group
}

func parseGate(s string) (gate, error) {
	if s == "" {
		return gate{}, nil
	}
	name, v, ok := strings.Cut(s, "=")
	if !ok { // a bare share, as a user first types it: the overall as-written rate
		name, v, ok = string(eval.AsWritten), s, true
	}
	min, err := strconv.ParseFloat(v, 64)
	if err != nil || min < 0 || min > 1 {
		return gate{}, fmt.Errorf("eval: -fail-under %q: want MIN or RATE=MIN with MIN in 0..1, as 0.9 or after-repair=0.95", s)
	}
	g := gate{rate: eval.Rate(name), min: min, overall: !strings.Contains(s, "=")}
	if _, err := (eval.Group{}).Rate(g.rate); err != nil {
		return gate{}, fmt.Errorf("eval: -fail-under: %w", err)
	}
	return g, nil
}

// groupName shows the group "" (records without the field) as "-".
func groupName(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func percent(r float64) string { return strconv.FormatFloat(100*r, 'f', 1, 64) + "%" }

// share is "n (p%)" of a group's judged records.
func share(g eval.Group, r eval.Rate) string {
	n := g.PassedAsWritten
	if r == eval.AfterRepair {
		n = g.PassedAfterRepair
	}
	v, _ := g.Rate(r)
	return fmt.Sprintf("%d (%s)", n, percent(v))
}

// failedAt is a group's failures by stage, most first.
func failedAt(g eval.Group) string {
	type kv struct {
		k enforce.Stage
		v int
	}
	var kvs []kv
	for k, v := range g.Failed {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool {
		if kvs[i].v != kvs[j].v {
			return kvs[i].v > kvs[j].v
		}
		return kvs[i].k < kvs[j].k
	})
	var parts []string
	for _, e := range kvs {
		parts = append(parts, fmt.Sprintf("%s %d", e.k, e.v))
	}
	if g.SchemaErrors > 0 {
		parts = append(parts, fmt.Sprintf("schema did not compile %d", g.SchemaErrors))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// judgeSpend is "; judges spent N tokens" (and money, when priced) of a
// group whose judge checks asked models, "" of one whose did not.
func judgeSpend(g eval.Group) string {
	if g.JudgeTokens == 0 && g.JudgeMoney == 0 {
		return ""
	}
	s := fmt.Sprintf("; judges spent %d tokens", g.JudgeTokens)
	if g.JudgeMoney > 0 {
		s += fmt.Sprintf(", %.6f", g.JudgeMoney)
	}
	return s
}

// total is the report's groups summed, as the group "all".
func total(rep *eval.Report) eval.Group {
	all := eval.Group{Group: "all", Failed: map[enforce.Stage]int{}}
	for _, g := range rep.Groups {
		all.Records += g.Records
		all.PassedAsWritten += g.PassedAsWritten
		all.PassedAfterRepair += g.PassedAfterRepair
		all.SchemaErrors += g.SchemaErrors
		all.NoAnswer += g.NoAnswer
		for k, v := range g.Failed {
			all.Failed[k] += v
		}
	}
	return all
}

func writeTable(w io.Writer, rep *eval.Report) {
	rows := append(append([]eval.Group(nil), rep.Groups...), total(rep))
	columns(w, func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "group\trecords\tas written\tafter repair")
		for _, g := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", groupName(g.Group), g.Records, share(g, eval.AsWritten), share(g, eval.AfterRepair))
		}
	})
	repairs := "none"
	if rep.Repairs != 0 {
		repairs = rep.Repairs.String()
	}
	fmt.Fprintf(w, "repairs: %s\n", repairs)
	for _, g := range rows[:len(rows)-1] {
		if g.ChecksRun > 0 {
			fmt.Fprintf(w, "%s checks: %d of %d passed%s\n", groupName(g.Group), g.ChecksPassed, g.ChecksRun, judgeSpend(g))
		}
	}
	for _, g := range rows[:len(rows)-1] {
		if l := g.Labels; l != nil {
			fmt.Fprintf(w, "%s labels: %d of %d exactly right (-md and -html show the confusion matrix)\n", groupName(g.Group), l.Exact, l.Records)
		}
	}
	for _, g := range rows[:len(rows)-1] {
		if f := failedAt(g); f != "-" {
			fmt.Fprintf(w, "%s failed at: %s", groupName(g.Group), f)
			if len(g.Pointers) > 0 {
				fmt.Fprintf(w, "; most at %s (%d)", pointerName(g.Pointers[0].Key), g.Pointers[0].Count)
			}
			fmt.Fprintln(w)
		}
	}
}

func writeLiveTable(w io.Writer, rep *eval.Report) {
	priced, noAnswer := false, false
	for _, g := range rep.Groups {
		priced = priced || g.Money > 0
		noAnswer = noAnswer || g.NoAnswer > 0
	}
	columns(w, func(tw *tabwriter.Writer) {
		head := "group\truns\tfirst try\tafter retry\texhausted\terrors\ttokens\tp50 ms\tp99 ms"
		if noAnswer {
			head = "group\truns\tfirst try\tafter retry\texhausted\tno answer\terrors\ttokens\tp50 ms\tp99 ms"
		}
		if priced {
			head += "\tmoney"
		}
		fmt.Fprintln(tw, head)
		for _, g := range rep.Groups {
			var p50, p99 float64
			if g.LatencyMs != nil {
				p50, p99 = g.LatencyMs.P50, g.LatencyMs.P99
			}
			first, _ := g.Rate(eval.FirstTry)
			after, _ := g.Rate(eval.AfterRetry)
			exhausted := strconv.Itoa(g.Exhausted)
			if noAnswer {
				exhausted += "\t" + strconv.Itoa(g.NoAnswer)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d (%s)\t%d (%s)\t%s\t%d\t%d\t%.0f\t%.0f", groupName(g.Group), g.Runs,
				g.PassedFirstTry, percent(first), g.PassedAfterRetry, percent(after), exhausted, g.RunErrors, g.Tokens, p50, p99)
			if priced {
				fmt.Fprintf(tw, "\t%.6f", g.Money)
			}
			fmt.Fprintln(tw)
		}
	})
}

// progress is a live eval's progress bar on w when w is a terminal, and
// nil (none) otherwise: a pipe or a file gets only the report.
func progress(w io.Writer) func(eval.RunVerdict, int, int) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return drawProgress(w)
}

// stopOnSignal is how a live eval ends on a signal: when ctx ends (the
// first SIGINT or SIGTERM), stop closes and no more runs start, while
// the runs in flight go on under runCtx; a second signal ends runCtx
// too. end releases it all.
func stopOnSignal(ctx context.Context) (runCtx context.Context, stop <-chan struct{}, end func()) {
	runCtx, cancelRuns := context.WithCancel(context.WithoutCancel(ctx))
	stopped, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			close(stopped)
		case <-done:
			return
		}
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(again)
		select {
		case <-again:
			cancelRuns()
		case <-done:
		}
	}()
	return runCtx, stopped, func() {
		close(done)
		wg.Wait()
		cancelRuns()
	}
}

// drawProgress is a bar on w, redrawn as each run ends, with the runs
// that ended passing and those that did not so far: "runs 3/8 [=====
// ] 2 passed, 1 failed". eval.Live calls it one run at a time.
func drawProgress(w io.Writer) func(eval.RunVerdict, int, int) {
	passed, failed := 0, 0
	return func(v eval.RunVerdict, done, total int) {
		if v.PassedAfterRetry {
			passed++
		} else {
			failed++
		}
		const width = 30
		n := width * done / max(total, 1)
		fmt.Fprintf(w, "\rruns %d/%d [%s%s] %d passed, %d failed", done, total, strings.Repeat("=", n), strings.Repeat(" ", width-n), passed, failed)
		if done == total {
			fmt.Fprintln(w)
		}
	}
}

// readPrices reads a -prices file: prices per million tokens by model.
func readPrices(name string) (map[string]agent.Price, error) {
	b, err := readBounded(name, nil, maxSchemaBytes)
	if err != nil {
		return nil, fmt.Errorf("eval: -prices: %w", err)
	}
	var p map[string]agent.Price
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("eval: -prices %s: want {\"MODEL\": {\"input\": …, \"cachedInput\": …, \"output\": …, \"reasoning\": …}}: %w", name, err)
	}
	// agent.WithPrices refuses these too, but at each run: every run
	// would end as an error with no request sent.
	models := make([]string, 0, len(p))
	for m := range p {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		for _, f := range []struct {
			member string
			v      float64
		}{{"input", p[m].Input}, {"cachedInput", p[m].CachedInput}, {"output", p[m].Output}, {"reasoning", p[m].Reasoning}} {
			if f.v < 0 {
				return nil, fmt.Errorf("eval: -prices: %q: %s is %g; a price is at least 0", m, f.member, f.v)
			}
		}
	}
	return p, nil
}

// writeFile writes the report to name as write does; flag names the
// option in errors.
func writeFile(flag, name string, rep *eval.Report, write func(io.Writer, *eval.Report) error) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("eval: %s: %w", flag, err)
	}
	if err := write(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("eval: %s: %w", flag, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("eval: %s: %w", flag, err)
	}
	return nil
}

// columns writes to w what fill writes to its tabwriter, in columns two
// spaces apart, each line without the padding after its last cell.
func columns(w io.Writer, fill func(tw *tabwriter.Writer)) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fill(tw)
	tw.Flush()
	for line := range strings.Lines(buf.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
}

// pointerName shows the whole answer's pointer "" as "#", as a location.
func pointerName(p string) string { return "#" + p }

func writeMarkdown(w io.Writer, rep *eval.Report) {
	rows := append(append([]eval.Group(nil), rep.Groups...), total(rep))
	// An answer that never came has a column of its own, when one did not.
	noAnswer := rows[len(rows)-1].NoAnswer > 0
	if noAnswer {
		fmt.Fprintln(w, "| group | records | as written | after repair | failed at | no answer |")
		fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- | ---: |")
	} else {
		fmt.Fprintln(w, "| group | records | as written | after repair | failed at |")
		fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- |")
	}
	for i, g := range rows {
		name := mdCell(groupName(g.Group))
		if i == len(rows)-1 {
			name = "**all**"
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s |", name, g.Records, share(g, eval.AsWritten), share(g, eval.AfterRepair), mdCell(failedAt(g)))
		if noAnswer {
			fmt.Fprintf(w, " %d |", g.NoAnswer)
		}
		fmt.Fprintln(w)
	}
	for _, g := range rep.Groups {
		if g.Labels != nil {
			writeLabelsMarkdown(w, g)
		}
	}
}

// maxMatrixLabels is the most labels whose confusion matrix -md prints,
// as the page draws (-json holds every one).
const maxMatrixLabels = 30

// writeLabelsMarkdown prints a group's labels: its confusion matrix (of
// at most maxMatrixLabels labels) and each label's precision and recall.
func writeLabelsMarkdown(w io.Writer, g eval.Group) {
	l := g.Labels
	fmt.Fprintf(w, "\n**%s**: %d of %d labelled records exactly right\n\n", mdCell(groupName(g.Group)), l.Exact, l.Records)
	if len(l.Labels) <= maxMatrixLabels {
		fmt.Fprint(w, "| expected \\ answered |")
		for _, name := range l.Labels {
			fmt.Fprintf(w, " %s |", mdCell(name))
		}
		fmt.Fprintln(w, " failed |")
		fmt.Fprintln(w, "| --- |"+strings.Repeat(" ---: |", len(l.Labels)+1))
		for i, row := range l.Matrix {
			fmt.Fprintf(w, "| %s |", mdCell(l.Labels[i]))
			for _, n := range row {
				fmt.Fprintf(w, " %d |", n)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| label | precision | recall | true + | false + | false − |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, s := range l.PerLabel {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d |\n", mdCell(s.Label), ratio(s.Precision), ratio(s.Recall), s.TruePositives, s.FalsePositives, s.FalseNegatives)
	}
}

// ratio is a precision or recall to three places, "-" when undefined.
func ratio(r *float64) string {
	if r == nil {
		return "-"
	}
	return strconv.FormatFloat(*r, 'f', 3, 64)
}

// writeRules prints each group's rules' pass rates, a Markdown table
// when md, a line each otherwise; nothing when no rule was asked.
func writeRules(w io.Writer, rep *eval.Report, md bool) {
	head := false
	for _, g := range rep.Groups {
		for _, r := range g.Rules {
			passed := fmt.Sprintf("%d of %d (%s)", r.Passed, r.Asked, percent(r.Rate()))
			if !md {
				fmt.Fprintf(w, "%s rule %s on %s: passed %s", groupName(g.Group), r.Rule, r.On, passed)
				for _, v := range [...]struct {
					n    int
					word string
				}{{r.Failed, "failed"}, {r.Tripped, "tripped"}, {r.Fixed, "fixed"}, {r.Warned, "warned"}} {
					if v.n > 0 {
						fmt.Fprintf(w, ", %s %d", v.word, v.n)
					}
				}
				fmt.Fprintln(w)
				continue
			}
			if !head {
				fmt.Fprintln(w, "\n| group | rule | on | passed | failed | tripped | fixed | warned |")
				fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
				head = true
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %d | %d | %d |\n", mdCell(groupName(g.Group)), mdCell(r.Rule), r.On, passed,
				r.Failed, r.Tripped, r.Fixed, r.Warned)
		}
	}
}

// mdCell escapes what would break a Markdown table's cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// writeCaseChanges prints the cases that moved: their counts, then one
// line each, in the new report's order.
func writeCaseChanges(w io.Writer, d eval.Diff) {
	n := map[eval.CaseMove]int{}
	for _, c := range d.Cases {
		n[c.Move]++
	}
	fmt.Fprintf(w, "cases: %d newly failing, %d newly passing, %d changed issue\n", n[eval.NewlyFailing], n[eval.NewlyPassing], n[eval.IssueChanged])
	for _, c := range d.Cases {
		name := c.New.ID
		if name == "" {
			name = fmt.Sprintf("line %d", c.New.Line)
		}
		name += " (" + groupName(c.New.Group) + ")"
		switch c.Move {
		case eval.NewlyFailing:
			fmt.Fprintf(w, "newly failing: %s: %s\n", name, caseIssue(c.New))
		case eval.NewlyPassing:
			fmt.Fprintf(w, "newly passing: %s\n", name)
		case eval.IssueChanged:
			fmt.Fprintf(w, "changed issue: %s: %s → %s\n", name, caseIssue(c.Old), caseIssue(c.New))
		}
	}
	if d.Unmatched > 0 {
		fmt.Fprintf(w, "%s without a match (a record without an id is matched by line only in one dataset)\n", count(d.Unmatched, "case"))
	}
}

// caseIssue is a failing case's stage and first issue, on one line.
func caseIssue(v eval.Verdict) string {
	if v.SchemaError != "" {
		return "the schema did not compile: " + clip(v.SchemaError)
	}
	if len(v.Issues) == 0 {
		return string(v.Stage)
	}
	s := fmt.Sprintf("%s at %s: %s", v.Stage, pointerName(v.Issues[0].Path), clip(v.Issues[0].Message))
	if len(v.Issues) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(v.Issues)-1)
	}
	return s
}

// clip is s on one line, at most 120 runes.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return s
}

// compareCmd is `enforcer eval -compare OLD NEW`; with -html, the page
// of NEW opening with what moved.
func compareCmd(oldFile, newFile string, tolerance float64, htmlFile string, stdout io.Writer) (int, error) {
	if tolerance < 0 || tolerance > 1 {
		return 0, fmt.Errorf("eval: -tolerance %v is not in 0..1", tolerance)
	}
	var reps [2]*eval.Report
	for i, name := range []string{oldFile, newFile} {
		b, err := readBounded(name, nil, 256<<20)
		if err != nil {
			return 0, fmt.Errorf("eval: %w", err)
		}
		if err := json.Unmarshal(b, &reps[i]); err != nil || reps[i] == nil {
			return 0, fmt.Errorf("eval: %s is not a report of enforcer eval -json: %v", name, err)
		}
	}
	d := eval.Compare(reps[0], reps[1], tolerance)
	if htmlFile != "" {
		page := func(w io.Writer, rep *eval.Report) error { return eval.WriteCompareHTML(w, rep, d) }
		if err := writeFile("-html", htmlFile, reps[1], page); err != nil {
			return 0, err
		}
	}
	columns(stdout, func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "group\trate\told\tnew\t")
		for _, c := range d.Rates {
			mark := ""
			switch {
			case c.Regressed && c.Missing == "new":
				mark = "REGRESSED (not in NEW)"
			case c.Regressed:
				mark = "REGRESSED"
			case c.Missing == "old":
				mark = "new group"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", groupName(c.Group), c.Rate, percent(c.Old), percent(c.New), mark)
		}
	})
	for _, p := range d.Pointers {
		fmt.Fprintf(stdout, "%s: %s failing %d → %d\n", groupName(p.Group), pointerName(p.Pointer), p.Old, p.New)
	}
	if len(reps[0].Cases)+len(reps[1].Cases) > 0 {
		writeCaseChanges(stdout, d)
	}
	if n := len(d.Regressions()); n > 0 {
		fmt.Fprintf(stdout, "FAIL: %s beyond %s\n", count(n, "regression"), percent(tolerance))
		return exitFail, nil
	}
	return exitOK, nil
}
