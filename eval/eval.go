// Package eval measures how well answers keep their output contracts over
// a dataset: how many pass as written, how many a repair mends with no
// model call, where the rest fail, and, where a record says what it
// expected, how many of its values are right. `enforcer eval` is a thin
// face on it; a Go test can run [Offline] over its own dataset and
// assert on the [Report].
//
// A dataset is JSON Lines, one record a line ([Record]): a contract
// (`schema`, inline or a file's path), the answer a model gave
// (`output`), and optionally `id`, `model` and `expected`. Every record is
// judged exactly as the library judges an answer ([enforce.Schema.Check]),
// once as written and once with the repairs chosen, so its verdicts are
// those of `enforcer check` and `enforcer check -repair LIST` on the same
// schema and answer. The report holds each record's case ([Verdict]) as
// well as the groups' figures; [Compare] holds two reports against each
// other, case by case ([WriteCompareHTML] draws it), and [WriteJUnit]
// writes the cases for CI. A record's checks may ask a model ([Judges]),
// and choice and multi-label records get a confusion matrix ([Labels]).
package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
)

// MaxRecordBytes is the longest line of a dataset [Offline] reads: an
// answer of enforce.MaxAnswerBytes with its schema and the rest.
const MaxRecordBytes = 2*enforce.MaxAnswerBytes + 1<<20

// Record is one line of a dataset. Fields other than these are kept, as
// text, for grouping ([Options.By]).
type Record struct {
	// ID names the record in verdicts; empty, its line number does.
	ID string `json:"id,omitempty"`
	// Model is the model that wrote Output; records are grouped by it
	// unless [Options.By] names another field.
	Model string `json:"model,omitempty"`
	// Schema is the contract: a JSON Schema object, or a JSON string
	// naming a file of [Options.Schemas] (a path relative to the dataset).
	Schema json.RawMessage `json:"schema"`
	// Output is the answer as the model wrote it.
	Output *string `json:"output"`
	// Result, in place of Output, is a run saved as JSON (an agent.Result,
	// as agenttest.Replay reads): its first final answer is judged, as
	// the model wrote it, and its first row's model names the record's
	// when Model is empty.
	Result json.RawMessage `json:"result,omitempty"`
	// Tool, when set, names the tool whose call's arguments Output holds:
	// Schema is its parameters, and the record is judged as the agent
	// judges a call (enforce.CallLedger: no arguments are {}, and the
	// repairs mend as for a call). Such records are grouped by tool unless
	// [Options.By] names a field.
	Tool string `json:"tool,omitempty"`
	// Expected, when present, is the value the answer should hold; each
	// of its leaves is compared with the answer's value at its pointer
	// ([Fields]).
	Expected json.RawMessage `json:"expected,omitempty"`
	// Checks, when present, hold the answer's values beyond its shape
	// ([Check]), on the answer as mended.
	Checks []Check `json:"checks,omitempty"`
}

// Options says how [Offline] judges a dataset. The zero value judges as
// written, groups by model and takes only inline schemas.
type Options struct {
	// Repairs are the repairs tried on an answer that fails as written,
	// as with `enforcer check -repair` ([enforce.ParseRepairs]).
	Repairs enforce.Repairs
	// By names the record field to group by (a top-level member; its
	// JSON text, or the string it holds); "" groups by "model". A record
	// without the field is in the group "".
	By string
	// Schemas holds the schema files records name by path; nil, a record
	// whose schema is a path is an error.
	Schemas fs.FS
	// Verdict, when not nil, is called with each record's verdict, in
	// the dataset's order.
	Verdict func(Verdict)
	// Judges reaches the models of the records' judge checks.
	Judges Judges
}

// Verdict is what judging one record found.
type Verdict struct {
	// Line is the record's line number in the dataset, from 1.
	Line int `json:"line"`
	// ID is the record's id.
	ID string `json:"id,omitempty"`
	// Group is the record's group ([Options.By]).
	Group string `json:"group"`
	// PassedAsWritten: the answer keeps its contract as the model wrote it.
	PassedAsWritten bool `json:"passedAsWritten"`
	// PassedAfterRepair: it does, as written or mended by the repairs
	// chosen; equal to PassedAsWritten when none is.
	PassedAfterRepair bool `json:"passedAfterRepair"`
	// Repaired names the repairs that mended the answer, or those that
	// were applied before it still failed.
	Repaired enforce.Repairs `json:"repaired,omitzero"`
	// Stage is where the answer (mended, when repairs were chosen) failed:
	// "" when it passed.
	Stage enforce.Stage `json:"stage,omitempty"`
	// Issues are its issues, each at its JSON Pointer.
	Issues []enforce.Issue `json:"issues,omitzero"`
	// Fields compares the answer with the record's expected value; nil
	// without one.
	Fields *Fields `json:"fields,omitempty"`
	// Checks is how the answer fared against the record's checks; nil
	// without any.
	Checks *Checks `json:"checks,omitempty"`
	// SchemaError is why the record's schema did not compile: the record
	// is counted apart ([Group.SchemaErrors]), neither passed nor failed.
	SchemaError string `json:"schemaError,omitempty"`
	// Output is the answer as the model wrote it, kept for a case that
	// failed (after the repairs); "" for one that passed.
	Output string `json:"output,omitempty"`
	// Mended is the answer as the repairs applied left it; "" when none
	// was.
	Mended string `json:"mended,omitempty"`
	// Runs are a live record's runs ([Live]), by run number; nil offline.
	// Live sets PassedAsWritten and PassedAfterRepair when every run's
	// first answer did so, and Stage and Issues from the first run whose
	// first answer failed.
	Runs []RunVerdict `json:"runs,omitzero"`
}

// Fields is how an answer's values compare with those a record expected:
// a leaf of the expected value (a string, number, boolean, null, empty
// object or empty array) matches when the answer holds an equal JSON
// value at its pointer.
type Fields struct {
	Compared int `json:"compared"`
	Matched  int `json:"matched"`
	// Wrong lists the pointers of the leaves that did not match, sorted.
	Wrong []string `json:"wrong,omitzero"`
}

// Report is what [Offline] found: its JSON form is `enforcer eval
// -json`'s output, a contract (docs/eval.md).
type Report struct {
	// Records counts the records judged.
	Records int `json:"records"`
	// Repairs are the repairs chosen.
	Repairs enforce.Repairs `json:"repairs"`
	// Groups holds one group per model (or [Options.By] value), sorted by
	// name.
	Groups []Group `json:"groups"`
	// Dataset is a digest of the dataset's bytes (CRC-32C): [Compare]
	// matches records without an id by line only between reports of one
	// dataset.
	Dataset string `json:"dataset,omitempty"`
	// Cases holds every record's verdict, in the dataset's order.
	Cases []Verdict `json:"cases"`
	// Partial: a live eval was stopped ([LiveOptions.Stop]) before every
	// run; the report is of the runs that ended, and Cases holds only
	// the records that ran.
	Partial bool `json:"partial,omitempty"`
}

// Group is the figures of one group of records.
type Group struct {
	Group   string `json:"group"`
	Records int    `json:"records"`
	// PassedAsWritten and PassedAfterRepair count records as the
	// [Verdict] fields of those names say.
	PassedAsWritten   int `json:"passedAsWritten"`
	PassedAfterRepair int `json:"passedAfterRepair"`
	// Repaired counts, by repair name, the records each repair took part
	// in mending.
	Repaired map[string]int `json:"repaired,omitzero"`
	// Failed counts failing records by the stage they failed at (after
	// the repairs).
	Failed map[enforce.Stage]int `json:"failed,omitzero"`
	// NoAnswer counts the records that failed at enforce.StageNoAnswer,
	// and the live runs that ended with no answer ([RunVerdict.NoAnswer]):
	// the model's thinking spent the reply, which is no malformed answer.
	NoAnswer int `json:"noAnswer,omitzero"`
	// Pointers counts failing records by the pointer of each of their
	// issues (a record once per pointer), most first.
	Pointers []Count `json:"pointers,omitzero"`
	// SchemaErrors counts the records whose schema did not compile.
	SchemaErrors int `json:"schemaErrors,omitzero"`
	// FieldsCompared and FieldsMatched sum the records' [Fields], for
	// those with an expected value; FieldsWrong counts the records by
	// each pointer whose leaf did not match, most first.
	FieldsCompared int     `json:"fieldsCompared,omitzero"`
	FieldsMatched  int     `json:"fieldsMatched,omitzero"`
	FieldsWrong    []Count `json:"fieldsWrong,omitzero"`
	// Labels compares the answers of its choice and multi-label records
	// with the labels expected; nil without any ([Labels]).
	Labels *Labels `json:"labels,omitempty"`
	// ChecksRun and ChecksPassed sum the records' [Checks].
	ChecksRun    int `json:"checksRun,omitzero"`
	ChecksPassed int `json:"checksPassed,omitzero"`
	// JudgeTokens and JudgeMoney sum what the judge checks' models
	// spent ([Judged]), apart from Tokens and Money.
	JudgeTokens int     `json:"judgeTokens,omitzero"`
	JudgeMoney  float64 `json:"judgeMoney,omitzero"`

	// The figures of a live eval ([Live]); zero offline. Runs counts the
	// group's runs; PassedAsWritten and PassedAfterRepair count runs
	// whose first answer passed as written, and as written or mended.
	Runs int `json:"runs,omitzero"`
	// PassedFirstTry counts runs whose first answer passed (as
	// PassedAfterRepair does); PassedAfterRetry, runs that ended with a
	// passing answer; Exhausted, runs that ended with a failing one; and
	// RunErrors, runs that ended with neither (a provider's error).
	PassedFirstTry   int `json:"passedFirstTry,omitzero"`
	PassedAfterRetry int `json:"passedAfterRetry,omitzero"`
	Exhausted        int `json:"exhausted,omitzero"`
	RunErrors        int `json:"runErrors,omitzero"`
	// Tokens sums the runs' input and output tokens; Money, what they
	// cost by the agent's prices (agent.WithPrices).
	Tokens int     `json:"tokens,omitzero"`
	Money  float64 `json:"money,omitzero"`
	// Cut counts the answers stopped at an early verdict, and CutBytes
	// the bytes of them read ([RunVerdict.Cut]).
	Cut      int `json:"cut,omitzero"`
	CutBytes int `json:"cutBytes,omitzero"`
	// LatencyMs is the runs' latency, nearest-rank p50 and p99.
	LatencyMs *Latency `json:"latencyMs,omitempty"`
	// Rules is each rule's pass rate ([RuleRate]), in the order the
	// rules first came; nil when no rule was asked.
	Rules []RuleRate `json:"rules,omitzero"`
}

// Count is how many records something holds.
type Count struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
}

// Offline judges every record of the dataset in r and reports by group.
// A line that is not a record ([Record]; Schema and Output required) or is
// longer than [MaxRecordBytes] ends it with an error naming the line;
// a schema that does not compile is counted, not an error. Each distinct
// schema is compiled once. It stops when ctx ends, returning
// context.Cause(ctx).
func Offline(ctx context.Context, r io.Reader, opts Options) (*Report, error) {
	j := judge{ctx: ctx, opts: opts, checks: newCheckCache(opts.Judges), schemas: map[string]compiled{}, groups: map[string]*group{}}
	cases := []Verdict{} // "cases": [] for an empty dataset, as "groups"
	digest, err := eachRecord(r, func(line int, text []byte) error {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		v, err := j.record(line, text)
		if err != nil {
			return fmt.Errorf("eval: line %d: %w", line, err)
		}
		cases = append(cases, v)
		if opts.Verdict != nil {
			opts.Verdict(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep := j.report()
	rep.Dataset, rep.Cases = digest, cases
	return rep, nil
}

// eachRecord calls f with each line of r that is not blank, numbered
// from 1, until f returns an error; at the end of r it returns the
// digest of r's bytes ([Report.Dataset]).
func eachRecord(r io.Reader, f func(line int, text []byte) error) (string, error) {
	// CRC-32C runs in hardware: the digest costs the eval no throughput.
	// It tells one dataset from another, not a forgery from the original.
	sum := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	br := bufio.NewReaderSize(io.TeeReader(r, sum), 64<<10)
	for line := 1; ; line++ {
		text, err := readLine(br)
		if err == io.EOF {
			return fmt.Sprintf("crc32c:%08x", sum.Sum32()), nil
		}
		if err != nil {
			return "", fmt.Errorf("eval: line %d: %w", line, err)
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		if err := f(line, text); err != nil {
			return "", err
		}
	}
}

// ErrLineTooLong is the error of a dataset line over [MaxRecordBytes].
var ErrLineTooLong = errors.New("record is longer than eval.MaxRecordBytes")

// ErrSchemaOutside is the error of a record whose schema path leaves the
// dataset's folder ([Options.Schemas]): refused on purpose, so a dataset
// reads no file its folder does not hold.
var ErrSchemaOutside = errors.New("the path leaves the dataset's folder, which is refused on purpose: name a schema file beside or below the dataset")

// readLine reads one line without its newline, at most MaxRecordBytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxRecordBytes+1 {
			return nil, ErrLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// compiled is one schema, as written and with the repairs chosen, or why
// it did not compile.
type compiled struct {
	plain, repaired *enforce.Schema
	err             string
	labels          *labelSet // the labels it lists, for Labels
}

// judge is one Offline's state.
type judge struct {
	ctx     context.Context // the judge checks' (Offline's)
	opts    Options
	checks  *checkCache
	schemas map[string]compiled // by schema text (inline) or "file:"+path
	groups  map[string]*group
	records int
}

// group is a Group being counted.
type group struct {
	Group
	pointers, wrong map[string]int
	labelCounts     *labelCounts
}

func (j *judge) record(line int, text []byte) (Verdict, error) {
	var rec Record
	if err := json.Unmarshal(text, &rec); err != nil {
		return Verdict{}, fmt.Errorf("not a record: %w", err)
	}
	saved := rec.Output == nil && len(rec.Result) > 0
	switch {
	case len(rec.Schema) == 0 || string(rec.Schema) == "null":
		return Verdict{}, errors.New(`the record has no "schema"`)
	case saved:
		out, model, err := firstAnswer(rec.Result)
		if err != nil {
			return Verdict{}, err
		}
		rec.Output = &out
		if rec.Model == "" {
			rec.Model = model
		}
	case rec.Output == nil:
		return Verdict{}, errors.New(`the record has no "output" (a live run's "prompt" needs a model: not offline)`)
	}
	checks, err := j.checks.compile(rec.Checks)
	if err != nil {
		return Verdict{}, err
	}
	group := rec.Model
	if rec.Tool != "" && j.opts.By == "" {
		group = rec.Tool
	}
	name, c, err := j.admit(text, group, rec.Schema)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Line: line, ID: rec.ID, Group: name}
	if c.err != "" {
		v.SchemaError = c.err
		return v, nil
	}
	g := j.group(name)
	if saved {
		g.addRules(savedRules(rec.Result)) // the rules' verdicts as the run recorded them
	}
	out := *rec.Output
	if rec.Tool != "" {
		final := judgeCall(&v, c, rec.Tool, out, j.opts.Repairs != 0)
		if !v.PassedAfterRepair {
			v.Output = out
		}
		if len(rec.Expected) > 0 {
			v.Fields = compare(rec.Expected, final, v.PassedAfterRepair)
		}
		if len(rec.Checks) > 0 {
			v.Checks = runChecks(j.ctx, checks, final, v.PassedAfterRepair)
		}
		g.addLabels(c.labels, rec.Expected, final, v.PassedAfterRepair)
		g.add(v)
		return v, nil
	}
	v.PassedAsWritten = c.plain.Check(out) == nil
	final := out
	if v.PassedAsWritten || j.opts.Repairs == 0 {
		v.PassedAfterRepair = v.PassedAsWritten
		if !v.PassedAsWritten {
			v.Stage, v.Issues = failure(c.plain.Check(out))
		}
	} else {
		err := c.repaired.Check(out)
		v.PassedAfterRepair = err == nil
		mended, applied := c.repaired.Repaired(out)
		v.Repaired = applied
		if applied != 0 {
			v.Mended = mended
		}
		if err == nil {
			final = mended
		} else {
			v.Stage, v.Issues = failure(err)
		}
	}
	if !v.PassedAfterRepair {
		v.Output = out
	}
	if len(rec.Expected) > 0 {
		v.Fields = compare(rec.Expected, final, v.PassedAfterRepair)
	}
	if len(rec.Checks) > 0 {
		v.Checks = runChecks(j.ctx, checks, final, v.PassedAfterRepair)
	}
	g.addLabels(c.labels, rec.Expected, final, v.PassedAfterRepair)
	g.add(v)
	return v, nil
}

// judgeCall judges args as a call of tool against c, as written and,
// with repairs, as they mend it, into v; it returns the arguments the
// tool would be given.
func judgeCall(v *Verdict, c compiled, tool, args string, repairs bool) string {
	call := enforce.Call{Tool: tool, Arguments: args}
	l, _ := enforce.NewCallLedger(0, 0) // no limit, no repeats: in bounds
	as := l.Judge(c.plain, call)
	v.PassedAsWritten, v.PassedAfterRepair = as.Err == nil, as.Err == nil
	if as.Err == nil || !repairs {
		if as.Err != nil {
			v.Stage, v.Issues = as.Err.Stage, as.Err.Issues
		}
		return as.Arguments
	}
	mended := l.Judge(c.repaired, call)
	v.PassedAfterRepair, v.Repaired = mended.Err == nil, mended.Row.Repaired
	if mended.Err != nil {
		v.Stage, v.Issues = mended.Err.Stage, mended.Err.Issues
	}
	return mended.Arguments
}

// firstAnswer is the first final answer of a saved agent.Result, as the
// model wrote it (a call's arguments for an answer given as a tool call),
// and the model its row names.
func firstAnswer(raw json.RawMessage) (answer, model string, err error) {
	var res struct {
		Messages []agent.Message   `json:"messages"`
		Attempts []enforce.Attempt `json:"attempts"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", "", fmt.Errorf(`"result" is not a saved agent.Result: %w`, err)
	}
	if len(res.Attempts) == 0 {
		return "", "", errors.New(`"result" has no rows: save a run with agent.WithOutputRetries`)
	}
	row := res.Attempts[0]
	n := 0
	for _, m := range res.Messages {
		if m.Role != agent.RoleAssistant {
			continue
		}
		if n++; n == row.Iteration { // one assistant message a model reply
			if m.Content == "" && len(m.ToolCalls) > 0 {
				return string(m.ToolCalls[0].Arguments), row.Model, nil
			}
			return m.Content, row.Model, nil
		}
	}
	return "", "", fmt.Errorf(`"result" holds no reply for its first row (iteration %d)`, row.Iteration)
}

// admit counts a record in its group — model's, unless Options.By names
// another field of text — and compiles its schema; a schema that does not
// compile is counted in the group's SchemaErrors.
func (j *judge) admit(text []byte, model string, schema json.RawMessage) (string, compiled, error) {
	name := model
	if j.opts.By != "" && j.opts.By != "model" {
		var err error
		if name, err = j.groupOf(text); err != nil {
			return "", compiled{}, err
		}
	}
	c, err := j.compile(schema)
	if err != nil {
		return "", compiled{}, err
	}
	g := j.group(name)
	j.records++
	g.Records++
	if c.err != "" {
		g.SchemaErrors++
	}
	return name, c, nil
}

// failure is the stage and issues of a failing Check's error.
func failure(err error) (enforce.Stage, []enforce.Issue) {
	var ce *enforce.CheckError
	if errors.As(err, &ce) {
		return ce.Stage, ce.Issues
	}
	return "", []enforce.Issue{{Keyword: "error", Message: err.Error()}}
}

// groupOf is the record's group: its By field as the string it holds or
// as JSON text.
func (j *judge) groupOf(text []byte) (string, error) {
	by := j.opts.By
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(text, &fields); err != nil {
		return "", fmt.Errorf("not a record: %w", err)
	}
	raw, ok := fields[by]
	if !ok {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw), nil
	}
	return b.String(), nil
}

// compile returns the record's schema compiled, from the cache when the
// same schema came before. An error is the dataset's (a path with no
// Schemas, a file that cannot be read); a schema that does not compile is
// the record's, in compiled.err.
func (j *judge) compile(raw json.RawMessage) (compiled, error) {
	key, text := string(raw), []byte(raw)
	var file string
	if json.Unmarshal(raw, &file) == nil {
		if j.opts.Schemas == nil {
			return compiled{}, fmt.Errorf("the schema is a path (%q) and no folder of schema files was given", file)
		}
		key = "file:" + file
		if c, ok := j.schemas[key]; ok {
			return c, nil
		}
		name := path.Clean(file)
		if !fs.ValidPath(name) { // "..", or rooted
			return compiled{}, fmt.Errorf("schema %q: %w", file, ErrSchemaOutside)
		}
		b, err := fs.ReadFile(j.opts.Schemas, name)
		if err != nil {
			return compiled{}, fmt.Errorf("schema: %w", err)
		}
		text = b
	} else if c, ok := j.schemas[key]; ok {
		return c, nil
	}
	var c compiled
	s, err := enforce.CompileSchema(text)
	if err != nil {
		c.err = err.Error()
	} else {
		c.plain, c.repaired = s, s.WithRepairs(j.opts.Repairs)
		c.labels = labelsOf(text)
	}
	j.schemas[key] = c
	return c, nil
}

func (j *judge) group(name string) *group {
	g, ok := j.groups[name]
	if !ok {
		g = &group{Group: Group{Group: name}, pointers: map[string]int{}, wrong: map[string]int{}}
		j.groups[name] = g
	}
	return g
}

// add counts v, which was judged, in g.
func (g *group) add(v Verdict) {
	if v.PassedAsWritten {
		g.PassedAsWritten++
	}
	if v.PassedAfterRepair {
		g.PassedAfterRepair++
		if !v.PassedAsWritten {
			for _, name := range strings.Split(v.Repaired.String(), ",") {
				if g.Repaired == nil {
					g.Repaired = map[string]int{}
				}
				g.Repaired[name]++
			}
		}
	} else {
		if g.Failed == nil {
			g.Failed = map[enforce.Stage]int{}
		}
		g.Failed[v.Stage]++
		if v.Stage == enforce.StageNoAnswer {
			g.NoAnswer++
		}
		seen := map[string]bool{}
		for _, is := range v.Issues {
			if !seen[is.Path] {
				seen[is.Path] = true
				g.pointers[is.Path]++
			}
		}
	}
	g.addChecks(v.Checks)
	if v.Fields != nil {
		g.FieldsCompared += v.Fields.Compared
		g.FieldsMatched += v.Fields.Matched
		for _, p := range v.Fields.Wrong {
			g.wrong[p]++
		}
	}
}

// addChecks counts c, an answer's checks (nil: none), in g.
func (g *group) addChecks(c *Checks) {
	if c == nil {
		return
	}
	g.ChecksRun += c.Run
	g.ChecksPassed += c.Passed
	for _, j := range c.Judged {
		g.JudgeTokens += j.Tokens
		g.JudgeMoney += j.Money
	}
}

func (j *judge) report() *Report {
	r := &Report{Records: j.records, Repairs: j.opts.Repairs, Groups: []Group{}}
	for _, g := range j.groups {
		for k, n := range g.pointers {
			g.Pointers = append(g.Pointers, Count{k, n})
		}
		sortCounts(g.Pointers)
		for k, n := range g.wrong {
			g.FieldsWrong = append(g.FieldsWrong, Count{k, n})
		}
		sortCounts(g.FieldsWrong)
		g.Labels = g.labelCounts.report()
		r.Groups = append(r.Groups, g.Group)
	}
	slices.SortFunc(r.Groups, func(a, b Group) int { return strings.Compare(a.Group, b.Group) })
	return r
}

// sortCounts sorts most first, then by key.
func sortCounts(cs []Count) {
	slices.SortFunc(cs, func(a, b Count) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Key, b.Key)
	})
}
