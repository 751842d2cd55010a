package native_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/enforce"
	realworld "github.com/enforcer-go/enforcer/internal/corpus"
	"github.com/enforcer-go/enforcer/internal/wireschema"
	"github.com/enforcer-go/enforcer/providers/internal/wiretest"
	"github.com/enforcer-go/enforcer/providers/native"
)

var update = flag.Bool("update", false, "rewrite testdata/figures.txt")

// The examples' types.
type (
	Invoice struct {
		Customer string `json:"customer"`
		Total    int    `json:"total"`
	}
	Trip struct {
		City  string   `json:"city"`
		Stops []string `json:"stops"`
		Days  int      `json:"days"`
	}
	Weather struct {
		City  string  `json:"city"`
		TempC float64 `json:"tempC"`
		Sky   string  `json:"sky" jsonschema:"enum=clear,enum=cloudy,enum=rain"`
	}
	Triage struct {
		Priority string `json:"priority" jsonschema:"enum=low,enum=normal,enum=urgent"`
		Team     string `json:"team"`
	}
	Forecast struct {
		City  string `json:"city"`
		HighC int    `json:"highC"`
	}
)

// SchemaFor types with optional fields, enums, nested objects, arrays of
// objects, formats and bounds.
type (
	Person struct {
		Name  string `json:"name" jsonschema:"minLength=1"`
		Nick  string `json:"nick,omitempty" jsonschema:"maxLength=12"`
		Age   int    `json:"age,omitempty" jsonschema:"minimum=0,maximum=150"`
		Email string `json:"email,omitempty" jsonschema:"format=email"`
	}
	Order struct {
		ID       string    `json:"id" jsonschema:"format=uuid"`
		Customer Customer  `json:"customer"`
		Lines    []Line    `json:"lines" jsonschema:"minItems=1,maxItems=50"`
		Placed   time.Time `json:"placed"`
		Note     string    `json:"note,omitempty" jsonschema:"maxLength=200"`
	}
	Customer struct {
		Name    string   `json:"name" jsonschema:"minLength=1"`
		Tier    string   `json:"tier" jsonschema:"enum=free,enum=pro"`
		Address *Address `json:"address,omitempty"`
	}
	Address struct {
		Street string `json:"street"`
		City   string `json:"city"`
		Zip    string `json:"zip,omitempty" jsonschema:"pattern=^[0-9]{5}$"`
	}
	Line struct {
		SKU   string  `json:"sku" jsonschema:"pattern=^[A-Z]{3}-[0-9]+$"`
		Qty   int     `json:"qty" jsonschema:"minimum=1"`
		Price float64 `json:"price" jsonschema:"exclusiveMinimum=0"`
	}
	Node struct {
		Name     string `json:"name"`
		Children []Node `json:"children,omitempty"`
	}
	Labels struct {
		Labels map[string]string `json:"labels"`
	}
)

func schemaOf[T any](t *testing.T) []byte {
	t.Helper()
	s, err := enforce.SchemaFor[T]()
	if err != nil {
		t.Fatal(err)
	}
	return s.JSON()
}

type contract struct {
	name   string
	schema []byte
}

// corpus is the contracts the figures are for.
func corpus(t *testing.T) []contract {
	cs := []contract{
		{"example Invoice", schemaOf[Invoice](t)},
		{"example Trip", schemaOf[Trip](t)},
		{"example Weather", schemaOf[Weather](t)},
		{"example Triage", schemaOf[Triage](t)},
		{"example Forecast", schemaOf[Forecast](t)},
		{"Person (optional fields)", schemaOf[Person](t)},
		{"Order (nested, arrays of objects)", schemaOf[Order](t)},
		{"Node (recursive)", schemaOf[Node](t)},
		{"Labels (a map)", schemaOf[Labels](t)},
	}
	files, err := filepath.Glob("testdata/contracts/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no contracts in testdata/contracts: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, contract{strings.TrimSuffix(filepath.Base(f), ".json"), b})
	}
	return cs
}

// providerCheck is each provider's documented rules, as its wire test
// server refuses them.
var providerCheck = map[native.Profile]func([]byte) error{
	native.OpenAI:     wiretest.OpenAIStrict,
	native.Anthropic:  wiretest.AnthropicFormat,
	native.Gemini:     wiretest.GeminiSchema,
	native.Mistral:    wiretest.MistralStrict,
	native.Groq:       wiretest.GroqStrict,
	native.XAI:        wiretest.XAISchema,
	native.OpenRouter: wiretest.OpenAIStrict,
	native.DeepSeek:   wiretest.DeepSeekSchema,
}

// checked is the profiles the figures are for: every one, the servers'
// rules checked where a wire test server has them.
var checked = native.Profiles

// sent checks what a lowering sends against the provider's rules: a
// strict schema must keep them all (a non-strict one is a hint OpenAI
// takes as it is).
func sent(l *native.Lowering, p native.Profile) error {
	check, ok := providerCheck[p]
	if l.Report.Mode != native.ModeStrict || !ok {
		return nil
	}
	return check(l.Schema)
}

func TestLoweredContractsAreNeverRefused(t *testing.T) {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := []string{"contract", "keywords"}
	for _, p := range checked {
		head = append(head, string(p))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	strict := map[native.Profile]int{}
	auto := map[native.Profile]*choices{}
	cs := corpus(t)
	for _, c := range cs {
		if _, err := enforce.CompileSchema(c.schema); err != nil {
			t.Fatalf("%s: CompileSchema: %v", c.name, err)
		}
		row := []string{c.name, ""}
		for _, p := range checked {
			l, err := native.Lower(c.schema, p)
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, p, err)
			}
			if err := sent(l, p); err != nil {
				t.Errorf("%s: the %s server refuses the lowered schema: %v\n%s", c.name, p, err, l.Schema)
			}
			if l.Report.Mode == native.ModeStrict {
				strict[p]++
			}
			if auto[p] == nil {
				auto[p] = &choices{}
			}
			auto[p].add(wireschema.ObjectRoot(c.schema), l.Report)
			row[1] = fmt.Sprint(len(l.Report.Keywords))
			row = append(row, fmt.Sprintf("%s, %d dropped", l.Report.Mode, l.Report.Dropped()))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	foot := []string{"sent strict", ""}
	for _, p := range checked {
		foot = append(foot, fmt.Sprintf("%d of %d", strict[p], len(cs)))
	}
	fmt.Fprintln(tw, strings.Join(foot, "\t"))
	modes := []string{"auto: native/tool/prompted", ""}
	for _, p := range checked {
		modes = append(modes, auto[p].String())
	}
	fmt.Fprintln(tw, strings.Join(modes, "\t"))
	tw.Flush()
	golden(t, "testdata/figures.txt", b.Bytes())
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("figures changed (-update rewrites them):\n%s\nwant:\n%s", got, want)
	}
}

// TestRealWorldSchemasAreNeverRefused lowers every schema of
// JSONSchemaBench's corpus that CompileSchema accepts, for each provider,
// and checks what is sent against the provider's rules.
func TestRealWorldSchemasAreNeverRefused(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("reads a corpus of 11,305 schemas: run it without -short and -race")
	}
	compiled := 0
	strict := map[native.Profile]int{}
	dropped := map[native.Profile]int{}
	refused := map[native.Profile][]string{}
	auto := map[native.Profile]*choices{}
	for _, doc := range realworld.Bench(t, nil) {
		if len(doc.Schema) == 0 {
			continue
		}
		if _, err := enforce.CompileSchema(doc.Schema); err != nil {
			continue
		}
		compiled++
		objectRoot := wireschema.ObjectRoot(doc.Schema)
		for _, p := range checked {
			l, err := native.Lower(doc.Schema, p)
			if err != nil {
				t.Fatalf("%s, %s: %v", doc.Name, p, err)
			}
			if l.Report.Mode == native.ModeStrict {
				strict[p]++
				dropped[p] += l.Report.Dropped()
			}
			if err := sent(l, p); err != nil {
				refused[p] = append(refused[p], fmt.Sprintf("%s: %v", doc.Name, err))
			}
			if auto[p] == nil {
				auto[p] = &choices{}
			}
			auto[p].add(objectRoot, l.Report)
		}
	}
	for _, p := range checked {
		sort.Strings(refused[p])
		t.Logf("%s: %d of %d sent strict (%d keywords dropped in those), %d refused; auto mode native/tool/prompted %s", p, strict[p], compiled, dropped[p], len(refused[p]), auto[p])
		for i, r := range refused[p] {
			if i == 10 {
				t.Errorf("%s: … %d refused in all", p, len(refused[p]))
				break
			}
			t.Errorf("%s refuses %s", p, r)
		}
	}
}

// choices counts the output modes agent.WithAutoOutputMode chooses for
// an adapter over a profile (one that takes tools, as every adapter here
// does): native where the lowering is exact, else tool, else, for a
// contract whose root is not an object (no tool's parameters), native
// where it is sent strict, or prompted.
type choices struct{ native, tool, prompted int }

func (c *choices) add(objectRoot bool, r native.Report) {
	exact, why := r.Exact()
	// As the agent decides (agent/mode.go, chooseMode): no tool mode for
	// a root that is not an object.
	m := agent.Modes{Native: exact, Strict: r.Mode == native.ModeStrict, Tools: exact || objectRoot, Why: why}
	mode, _ := m.Choice()
	switch mode {
	case agent.ModeNative:
		c.native++
	case agent.ModeTool:
		c.tool++
	default:
		c.prompted++
	}
}

func (c *choices) String() string { return fmt.Sprintf("%d/%d/%d", c.native, c.tool, c.prompted) }
