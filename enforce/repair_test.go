package enforce_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/enforce"
	"github.com/enforcer-go/enforcer/internal/proc"
)

const repairSchema = `{"type": "object", "required": ["sku", "qty"], "additionalProperties": false,
	"properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}, "price": {"type": "number"},
	"gift": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}},
	"size": {"enum": ["S", "M", "L"]}, "note": {"type": ["string", "number", "null"]}}}`

func TestRepairsMendWhatTheyName(t *testing.T) {
	tests := []struct {
		name    string
		repairs enforce.Repairs // 0: every repair
		answer  string
		want    string // the text judged
		applied string // Repairs.String
	}{
		{"a fence with a language tag", enforce.RepairFence, "```json\n{\"sku\": \"A\", \"qty\": 1}\n```", `{"sku": "A", "qty": 1}` + "\n", "fence"},
		{"a fence with no tag, whitespace around it", enforce.RepairFence, "\n  ```\n{\"sku\": \"A\", \"qty\": 1}\n```  \n", `{"sku": "A", "qty": 1}` + "\n", "fence"},
		{"an opening fence with no closing one", enforce.RepairFence, "```json\n{\"sku\": \"A\", \"qty\": 1}\n", `{"sku": "A", "qty": 1}` + "\n", "fence"},
		{"a fence of tildes", enforce.RepairFence, "~~~json\n{\"sku\": \"A\", \"qty\": 1}\n~~~", `{"sku": "A", "qty": 1}` + "\n", "fence"},
		{"a preamble", enforce.RepairProse, "Here is the JSON:\n{\"sku\": \"A\", \"qty\": 1}", `{"sku": "A", "qty": 1}`, "prose"},
		{"a preamble and a fenced value", enforce.RepairProse, "Sure!\n```json\n{\"sku\": \"A\", \"qty\": 1}\n```\nLet me know.", `{"sku": "A", "qty": 1}`, "prose"},
		{"a trailing explanation", enforce.RepairProse, "{\"sku\": \"A\", \"qty\": 1}\n\nThis orders one A (see [the catalogue)].", `{"sku": "A", "qty": 1}`, "prose"},
		{"trailing commas", enforce.RepairSyntax, `{"sku": "A", "qty": 1, "tags": ["x", "y",],}`, `{"sku": "A", "qty": 1, "tags": ["x", "y"]}`, "syntax"},
		{"comments", enforce.RepairSyntax, "{\n  // the item\n  \"sku\": \"A\", /* one */ \"qty\": 1\n}", "{\n  \n  \"sku\": \"A\",  \"qty\": 1\n}", "syntax"},
		{"single quotes and unquoted names", enforce.RepairSyntax, `{sku: 'A "x" it\'s', qty: 1}`, `{"sku": "A \"x\" it's", "qty": 1}`, "syntax"},
		{"Python literals", enforce.RepairSyntax, `{"sku": "A", "qty": 1, "gift": True, "note": None}`, `{"sku": "A", "qty": 1, "gift": true, "note": null}`, "syntax"},
		{"brackets of prose beside the value are no second reading", enforce.RepairProse, "Here {\"sku\": \"A\", \"qty\": 1}, from [(3/3)x^3]_1^4, \\frac{a}{b} and [see below].", `{"sku": "A", "qty": 1}`, "prose"},
		{"relaxed syntax in prose", enforce.RepairProse | enforce.RepairSyntax, "Here you go:\n{sku: 'A', qty: 1,}\nThanks!", `{"sku": "A", "qty": 1}`, "syntax,prose"},
		{"a quoted integer", enforce.RepairCoerce, `{"sku": "A", "qty": "21"}`, `{"sku": "A", "qty": 21}`, "coerce"},
		{"a quoted number and boolean", enforce.RepairCoerce, `{"sku": "A", "qty": 1, "price": "-2.5e3", "gift": "false"}`, `{"sku": "A", "qty": 1, "price": -2.5e3, "gift": false}`, "coerce"},
		{"a single value where an array is wanted", enforce.RepairCoerce, `{"sku": "A", "qty": 1, "tags": "red"}`, `{"sku": "A", "qty": 1, "tags": ["red"]}`, "coerce"},
		{"a fence, relaxed syntax and a quoted number", 0, "```json\n{sku: 'A', qty: '3',}\n```", "{\"sku\": \"A\", \"qty\": 3}\n", "fence,syntax,coerce"},
		{"an unquoted string value", enforce.RepairQuote, `{"sku": A-1, "qty": 1, "size": M}`, `{"sku": "A-1", "qty": 1, "size": "M"}`, "quote"},
		{"unquoted words where a string or a number may be", enforce.RepairQuote, `{"sku": "A", "qty": 1, "note": gift wrap}`, `{"sku": "A", "qty": 1, "note": "gift wrap"}`, "quote"},
		{"unquoted names and values", 0, "{sku: A, qty: 1, size: M}", `{"sku": "A", "qty": 1, "size": "M"}`, "syntax,quote"},
		{"a comma forgotten between members on separate lines", enforce.RepairSyntax, "{\n  \"sku\": \"A\"\n  \"qty\": 1\n}", "{\n  \"sku\": \"A\",\n  \"qty\": 1\n}", "syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := enforce.AllRepairs
			if tt.repairs != 0 {
				rs = tt.repairs
			}
			s := mustCompile(t, repairSchema).WithRepairs(rs)
			got, applied := s.Repaired(tt.answer)
			if got != tt.want || applied.String() != tt.applied {
				t.Errorf("Repaired = %q, %q; want %q, %q", got, applied, tt.want, tt.applied)
			}
			if err := s.Check(tt.answer); err != nil {
				t.Errorf("Check = %v, want the mended answer to pass", err)
			}
			if err := mustCompile(t, repairSchema).Check(tt.answer); err == nil {
				t.Errorf("without repairs the answer passes: the case tests nothing")
			}
		})
	}
}

// What must not be mended: each fails with every repair chosen, as it
// does without them.
func TestRepairsRefuseWhatIsNotExact(t *testing.T) {
	tests := []struct{ name, answer string }{
		{"two values in prose", "First: {\"sku\": \"A\", \"qty\": 1}\nOr: {\"sku\": \"B\", \"qty\": 2}"},
		{"two fenced values", "```json\n{\"sku\": \"A\", \"qty\": 1}\n```\n```json\n{\"sku\": \"B\", \"qty\": 2}\n```"},
		{"a value inside a broken one", "Order: {items: [{\"sku\": \"A\", \"qty\": 1}] and more"},
		{"a fraction for an integer", `{"sku": "A", "qty": "21.5"}`},
		{"a number with a unit", `{"sku": "A", "qty": "21 pcs"}`},
		{"a number with spaces", `{"sku": "A", "qty": " 21"}`},
		{"a boolean in capitals", `{"sku": "A", "qty": 1, "gift": "TRUE"}`},
		{"an enum near miss", `{"sku": "A", "qty": 1, "size": "small"}`},
		{"an enum in other case", `{"sku": "A", "qty": 1, "size": "m"}`},
		{"a missing member", `{"sku": "A"}`},
		{"no JSON at all", "NOT ENOUGH CONTEXT"},
		{"a string where a string is allowed stays a string", `{"sku": 12, "qty": 1}`},
		{"an unquoted word where a number is wanted", `{"sku": "A", "qty": many}`},
		{"an unquoted word where a boolean is wanted", `{"sku": "A", "qty": 1, "gift": yes}`},
		{"an unquoted word where an array is wanted", `{"sku": "A", "qty": 1, "tags": red}`},
		{"an unquoted expression", `{"sku": A.B, "qty": 1}`},
		{"unquoted items of an array", `{"sku": "A", "qty": 1, "tags": [red, blue]}`},
		{"NaN unquoted", `{"sku": NaN, "qty": 1}`},
		{"a comma forgotten between members on one line", `{"sku": "A" "qty": 1}`},
		{"a comma forgotten between items", "{\"sku\": \"A\", \"qty\": 1, \"tags\": [\"x\"\n\"y\"]}"},
		// Two readings (issue 42): a broken answer beside a whole one, a
		// value nested in a broken answer, an answer taken back.
		{"a broken answer beside a whole rival", "Final answer: {\"sku\": \"A\", \"qty\": 1 (I am sure)}\nFor comparison, the wrong one was {\"sku\": \"B\", \"qty\": 2}."},
		{"a value inside a broken answer, after a brace in a string", `{"sku": "A", "note": "use } to close", "qty": 1, "rejected": {"sku": "B", "qty": 2} (sure)}`},
		{"an answer retracted, the correction cut off", "{\"sku\": \"A\", \"qty\": 1}\n\nWait, that's wrong. Corrected: {\"sku\": \"B\", \"qty\": 2"},
		{"an answer retracted, the corrected fence cut off", "{\"sku\": \"A\", \"qty\": 1}\n\nActually no. The correct JSON is: ```json\n{\"sku\": \"B\","},
		{"an answer retracted, the correction cut at its brace", "```json\n{\"sku\": \"A\", \"qty\": 1}\n```\nSorry, corrected:\n```json\n{"},
		{"an answer taken back with no correction", "{\"sku\": \"A\", \"qty\": 1}\n\nWait, that's wrong."},
	}
	s := mustCompile(t, repairSchema).WithRepairs(enforce.AllRepairs)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Check(tt.answer); err == nil {
				got, applied := s.Repaired(tt.answer)
				t.Errorf("Check passed %q as %q (%s)", tt.answer, got, applied)
			}
		})
	}
}

// callsSchema wants a list of tool calls: an array root, an object each.
const callsSchema = `{"type": "array", "items": {"type": "object", "required": ["name"],
	"properties": {"name": {"type": "string"}, "n": {"type": "integer"}}}}`

func TestGatherMendsSeparateValuesIntoTheArray(t *testing.T) {
	tests := []struct {
		name    string
		repairs enforce.Repairs // 0: every repair
		answer  string
		want    string // the text judged
		applied string // Repairs.String
	}{
		{"objects one after another", enforce.RepairGather, "{\"name\": \"a\"}\n{\"name\": \"b\", \"n\": 2}", `[{"name": "a"}, {"name": "b", "n": 2}]`, "gather"},
		{"objects among prose, in order", enforce.RepairProse | enforce.RepairGather, "Call 1:\n{\"name\": \"b\"}\nCall 2:\n{\"name\": \"a\"}\nDone.", `[{"name": "b"}, {"name": "a"}]`, "prose,gather"},
		{"fenced blocks among prose", enforce.RepairProse | enforce.RepairGather, "First:\n```json\n{\"name\": \"a\"}\n```\nThen:\n```json\n{\"name\": \"b\"}\n```", `[{"name": "a"}, {"name": "b"}]`, "prose,gather"},
		{"fences opening list items", enforce.RepairProse | enforce.RepairGather, "Calls:\n1. ```\n{\"name\": \"a\"}\n```\n2. ```\n{\"name\": \"b\"}\n```\nBoth are needed.", `[{"name": "a"}, {"name": "b"}]`, "prose,gather"},
		{"one fence of several objects", enforce.RepairFence | enforce.RepairGather, "```json\n{\"name\": \"a\"}\n{\"name\": \"b\"}\n```", `[{"name": "a"}, {"name": "b"}]`, "fence,gather"},
		{"arrays of one call each give their calls", enforce.RepairProse | enforce.RepairGather, "Call 1:\n[{\"name\": \"a\"}]\nCall 2:\n[\n  {\"name\": \"b\"}\n]", `[{"name": "a"}, {"name": "b"}]`, "prose,gather"},
		{"relaxed objects among prose", 0, "Call 1:\n{name: 'a', n: 1,}\nCall 2:\n{name: b}", `[{"name": "a", "n": 1}, {"name": "b"}]`, "syntax,quote,prose,gather"},
		{"a fenced list preferred over an array quoted after it", enforce.RepairProse, "Here:\n```json\n[{\"name\": \"a\", \"n\": 1}]\n```\nIt reads `[1, 2]` first.", `[{"name": "a", "n": 1}]`, "prose"},
		{"a fenced list preferred, the answer opening with the fence", 0, "```json\n[{\"name\": \"a\"}]\n```\nThe table [45, 55] is read.", `[{"name": "a"}]`, "prose"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := enforce.AllRepairs
			if tt.repairs != 0 {
				rs = tt.repairs
			}
			s := mustCompile(t, callsSchema).WithRepairs(rs)
			got, applied := s.Repaired(tt.answer)
			if got != tt.want || applied.String() != tt.applied {
				t.Errorf("Repaired = %q, %q; want %q, %q", got, applied, tt.want, tt.applied)
			}
			if err := s.Check(tt.answer); err != nil {
				t.Errorf("Check = %v, want the mended answer to pass", err)
			}
			if err := mustCompile(t, callsSchema).Check(tt.answer); err == nil {
				t.Errorf("without repairs the answer passes: the case tests nothing")
			}
		})
	}
}

// What gather and the fenced preference must not do: drop a piece, join
// what may be alternatives, gather for a root that is not a list, or take
// one of several values that could each pass. Each fails with every
// repair chosen.
func TestGatherRefusesWhatIsNotExact(t *testing.T) {
	tests := []struct{ name, schema, answer string }{
		{"the last piece cut off (it would be dropped)", callsSchema, "Call 1:\n{\"name\": \"a\"}\nCall 2:\n{\"name\": "},
		{"a piece that is no value (it would be dropped)", callsSchema, "Call 1:\n{\"name\": \"a\"}\nCall 2:\n{name: f(x)}\nCall 3:\n{\"name\": \"c\"}"},
		{"objects beside an array", callsSchema, "{\"name\": \"a\"}\nwith [1, 2]\n{\"name\": \"b\"}"},
		{"arrays of numbers, which may be alternatives", `{"type": "array", "items": {"type": "integer"}}`, "Either [1, 2] or [3, 4]."},
		{"arrays where the items may be arrays are not flattened", `{"type": "array", "items": {"type": "array", "items": {"type": "integer"}}, "maxItems": 1}`, "[[1, 2]]\n[[3, 4]]"},
		{"two objects for an object root", repairSchema, "{\"sku\": \"A\", \"qty\": 1}\n{\"sku\": \"B\", \"qty\": 2}"},
		{"two objects for a root that is an object or an array", `{"type": ["object", "array"]}`, "{\"a\": 1}\n{\"b\": 2}"},
		{"a fraction for an integer in a gathered call", callsSchema, "{\"name\": \"a\"}\n{\"name\": \"b\", \"n\": 2.5}"},
		{"a gathered call missing its required member", callsSchema, "{\"name\": \"a\"}\n{\"n\": 2}"},
		{"a bracketed phrase in prose, for a list of strings", `{"type": "array", "items": {"type": "string"}}`, "I think [this is fine]."},
		{"a fenced list and a quoted one that passes too", callsSchema, "```json\n[{\"name\": \"a\"}]\n```\nor [{\"name\": \"b\"}]"},
		{"two fenced lists", callsSchema, "Use\n```json\n[{\"name\": \"a\"}]\n```\nor\n```json\n[]\n```\nand see [1]."},
		{"a fenced object and an object in prose, for an object root", repairSchema, "Say {\"sku\": 1}\n```json\n{\"sku\": \"A\", \"qty\": 1}\n```"},
		// Two readings (issue 42): alternatives, a template, a
		// restatement, a call beside an array.
		{"alternatives in prose", callsSchema, "You could call {\"name\": \"paris\"} or, instead, {\"name\": \"lyon\"}."},
		{"alternatives in two fences", callsSchema, "Either\n```json\n{\"name\": \"paris\"}\n```\nor, if Paris is full,\n```json\n{\"name\": \"lyon\"}\n```"},
		{"a template before the calls", callsSchema, "Each call has the form {\"name\": \"<function>\"}. Calls: {\"name\": \"a\"} {\"name\": \"b\"}"},
		{"a call restated", callsSchema, "Call 1: {\"name\": \"a\", \"n\": 1} To be clear, call 1 again: {\"name\": \"a\",\"n\":1}"},
		{"a call beside an array", callsSchema, "[{\"name\": \"a\"}]\nand also {\"name\": \"b\"}"},
		{"a call taken back", callsSchema, "Call 1: {\"name\": \"a\"}\nWait, that's wrong. Call 1: {\"name\": \"b\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			if s.Check(tt.answer) == nil {
				t.Fatal("passes as written: the case tests nothing")
			}
			if err := s.WithRepairs(enforce.AllRepairs).Check(tt.answer); err == nil {
				got, applied := s.WithRepairs(enforce.AllRepairs).Repaired(tt.answer)
				t.Errorf("Check passed %q as %q (%s)", tt.answer, got, applied)
			}
		})
	}
}

func TestAGatheredAnswerThatStillFailsSaysItWasGathered(t *testing.T) {
	s := mustCompile(t, callsSchema).WithRepairs(enforce.AllRepairs)
	ce := checkError(t, s.Check("{\"name\": \"a\"}\n{\"name\": 2}"))
	if ce.Path() != "/1/name" || ce.Repaired != enforce.RepairGather {
		t.Fatalf("CheckError = %v (repaired %s), want /1/name after the gather repair", ce, ce.Repaired)
	}
	msg := ce.Corrective(1, 3)
	if first := strings.Index(msg, "\n- at "); !strings.Contains(msg[:first], "gathered separate values into one array") {
		t.Errorf("the corrective message does not say, before the issues, that the values were gathered:\n%s", msg)
	}
}

func TestCoerceLeavesAStringAnyBranchAdmits(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "properties": {"id": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 1}]}}}`).WithRepairs(enforce.RepairCoerce)
	if got, applied := s.Repaired(`{"id": "42"}`); applied != 0 {
		t.Errorf("Repaired = %q (%s): a string branch admits the string, so it must stay one", got, applied)
	}
	s = mustCompile(t, `{"type": "object", "properties": {"id": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}`).WithRepairs(enforce.RepairCoerce)
	if got, _ := s.Repaired(`{"id": "42"}`); got != `{"id": 42}` {
		t.Errorf("Repaired = %q, want the integer: no branch admits a string", got)
	}
}

func TestAnAnswerThatPassesAsWrittenIsNotMended(t *testing.T) {
	s := mustCompile(t, `{"type": "array"}`).WithRepairs(enforce.AllRepairs)
	for _, answer := range []string{`["a", 1]`, "  [ ]  "} {
		if got, applied := s.Repaired(answer); got != answer || applied != 0 {
			t.Errorf("Repaired(%q) = %q, %s; want it as written", answer, got, applied)
		}
	}
}

func TestAMendedAnswerThatStillFailsNamesItsRepairs(t *testing.T) {
	s := mustCompile(t, repairSchema).WithRepairs(enforce.AllRepairs)
	ce := checkError(t, s.Check("```json\n{\"sku\": \"A\"}\n```"))
	if ce.Stage != enforce.StageSchemaValidate || ce.Path() != "/qty" || ce.Repaired.String() != "fence" {
		t.Fatalf("CheckError = %+v (repaired %s), want schema-validate at /qty after the fence repair", ce, ce.Repaired)
	}
	msg := ce.Corrective(1, 3)
	first := strings.Index(msg, "\n- at ")
	if !strings.Contains(msg[:first], "removed a markdown fence") {
		t.Errorf("the corrective message does not say, before the issues, what was mended:\n%s", msg)
	}
}

func TestWithoutRepairsBothStagesAreStrict(t *testing.T) {
	s := mustCompile(t, repairSchema)
	fenced := "```json\n{\"sku\": \"A\", \"qty\": 1}\n```"
	if got, applied := s.Repaired(fenced); got != fenced || applied != 0 {
		t.Errorf("Repaired = %q, %s; want nothing mended", got, applied)
	}
	if ce := checkError(t, s.Check(fenced)); ce.Stage != enforce.StageJSONParse || ce.Repaired != 0 {
		t.Errorf("Check = %v, want a json-parse failure with no repairs", ce)
	}
}

func TestRepairsJSONIsAnArrayOfNamesInOrder(t *testing.T) {
	rs := enforce.RepairCoerce | enforce.RepairFence
	b, err := json.Marshal(enforce.Attempt{Attempt: 1, Outcome: enforce.OutcomePassed, Repaired: rs})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"attempt":1,"iteration":0,"outcome":"passed","repaired":["fence","coerce"]}`; string(b) != want {
		t.Errorf("row JSON = %s, want %s", b, want)
	}
	var back enforce.Attempt
	if err := json.Unmarshal(b, &back); err != nil || back.Repaired != rs {
		t.Errorf("read back %+v, %v", back, err)
	}
	b, _ = json.Marshal(enforce.Attempt{Attempt: 1, Outcome: enforce.OutcomePassed})
	if strings.Contains(string(b), "repaired") {
		t.Errorf("a row with no repairs has the key: %s", b)
	}
	if rs, err := enforce.ParseRepairs(" coerce,fence "); err != nil || rs != enforce.RepairFence|enforce.RepairCoerce {
		t.Errorf("ParseRepairs = %s, %v", rs, err)
	}
	if rs, err := enforce.ParseRepairs("all"); err != nil || rs != enforce.AllRepairs || rs.String() != "fence,syntax,quote,prose,gather,coerce,label,tooltext" {
		t.Errorf("ParseRepairs(all) = %s, %v", rs, err)
	}
	if _, err := enforce.ParseRepairs("fence,quotes"); err == nil {
		t.Error("ParseRepairs accepted an unknown repair")
	}
	if err := json.Unmarshal([]byte(`{"repaired":["magic"]}`), &back); err == nil {
		t.Error("an unknown repair in a row's JSON was read")
	}
}

func TestTheLedgerRecordsRepairsAndHandsBackTheMendedAnswer(t *testing.T) {
	s := mustCompile(t, repairSchema).WithRepairs(enforce.AllRepairs)
	l, err := enforce.NewLedger(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: "```json\n{\"sku\": \"A\"}\n```"})
	if v.Row.Outcome != enforce.OutcomeRetried || v.Row.Repaired.String() != "fence" {
		t.Errorf("first row = %+v, want retried, repaired fence", v.Row)
	}
	v = l.Judge(t.Context(), enforce.Answer{Iteration: 2, Given: "Here:\n{sku: 'A', qty: '2'}"})
	if v.Row.Outcome != enforce.OutcomePassed || v.Row.Repaired.String() != "syntax,prose,coerce" {
		t.Errorf("second row = %+v, want passed, repaired syntax,prose,coerce", v.Row)
	}
	if v.Answer != `{"sku": "A", "qty": 2}` {
		t.Errorf("Verdict.Answer = %q, want the mended answer", v.Answer)
	}
	answer, rows, err := enforce.Loop(t.Context(), s, 0, func(context.Context, string) (string, error) {
		return "```\n{\"sku\": \"B\", \"qty\": 1}\n```", nil
	})
	if err != nil || answer != `{"sku": "B", "qty": 1}`+"\n" || !reflect.DeepEqual(outcomes(rows), []enforce.Outcome{enforce.OutcomePassed}) {
		t.Errorf("Loop = %q, %+v, %v; want the mended answer passing on one row", answer, rows, err)
	}
}

func TestTheLedgerRecordsGatherAndQuoteOnTheRow(t *testing.T) {
	s := mustCompile(t, callsSchema).WithRepairs(enforce.AllRepairs)
	l, err := enforce.NewLedger(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	given := "Tools call 1:\n{name: a}\n\nTools call 2:\n{\"name\": \"b\"}"
	v := l.Judge(t.Context(), enforce.Answer{Iteration: 1, Given: given})
	if v.Row.Outcome != enforce.OutcomePassed || v.Answer != `[{"name": "a"}, {"name": "b"}]` {
		t.Fatalf("row = %+v, answer %q; want passed with the calls gathered", v.Row, v.Answer)
	}
	b, err := json.Marshal(v.Row)
	if err != nil || !strings.Contains(string(b), `"repaired":["syntax","quote","prose","gather"]`) {
		t.Errorf("row JSON = %s, %v; want the repairs named in the order they apply", b, err)
	}
}

// Every prefix of an answer that a repair can still mend is not doomed:
// an Incremental of a schema with repairs gives no early verdict on a prefix of
// an answer that passes, and Close gives what Check gives.
func TestAStreamWithRepairsDoesNotDoomWhatARepairMends(t *testing.T) {
	answers := []string{
		"```json\n{\"sku\": \"A\", \"qty\": 1}\n```",
		"```json\n{\"sku\": \"A ``` B\", \"qty\": 1}```",
		"Sure! Here it is: {\"sku\": \"A\", \"qty\": 1} Bye",
		"{sku: 'A', qty: 1,}",
		"{\"sku\": \"A\", \"qty\": \"7\"}",
	}
	s := mustCompile(t, repairSchema).WithRepairs(enforce.AllRepairs)
	fenceOnly := mustCompile(t, repairSchema).WithRepairs(enforce.RepairFence | enforce.RepairCoerce)
	for _, answer := range answers {
		for _, s := range []*enforce.Schema{s, fenceOnly} {
			if s.Check(answer) != nil {
				continue
			}
			st := s.Stream()
			for i := range len(answer) {
				if _, err := st.WriteString(answer[i : i+1]); err != nil {
					t.Fatalf("%q with %s: early verdict at byte %d: %v", answer, s.Repairs(), i, err)
				}
			}
			if err := st.Close(); err != nil {
				t.Errorf("%q with %s: Close = %v, want a pass", answer, s.Repairs(), err)
			}
		}
	}
}

// Quote and gather alone mend what a strict judge would fail early (a
// bare word, an object for an array root), so with either the stream
// holds its verdict to the size bound, as with prose and syntax.
func TestAStreamWithQuoteOrGatherDoesNotDoomWhatTheyMend(t *testing.T) {
	for _, tt := range []struct {
		schema  string
		repairs enforce.Repairs
		answer  string
	}{
		{repairSchema, enforce.RepairQuote, `{"sku": A, "qty": 1}`},
		{callsSchema, enforce.RepairGather, "{\"name\": \"a\"}\n{\"name\": \"b\"}"},
		{callsSchema, enforce.RepairFence | enforce.RepairGather, "```json\n{\"name\": \"a\"}\n{\"name\": \"b\"}\n```"},
	} {
		s := mustCompile(t, tt.schema).WithRepairs(tt.repairs)
		if err := s.Check(tt.answer); err != nil {
			t.Fatalf("%q with %s: Check = %v, want a pass", tt.answer, tt.repairs, err)
		}
		st := s.Stream()
		for i := range len(tt.answer) {
			if _, err := st.WriteString(tt.answer[i : i+1]); err != nil {
				t.Fatalf("%q with %s: early verdict at byte %d: %v", tt.answer, tt.repairs, i, err)
			}
		}
		if err := st.Close(); err != nil {
			t.Errorf("%q with %s: Close = %v, want a pass", tt.answer, tt.repairs, err)
		}
	}
}

func TestAStreamWithTheFenceRepairStillCutsADoomedContent(t *testing.T) {
	s := mustCompile(t, repairSchema).WithRepairs(enforce.RepairFence)
	answer := "```json\n{\"sku\": \"A\", \"colour\": \"red\", \"qty\": 1}\n```"
	st := s.Stream()
	n, err := st.WriteString(answer)
	var ce *enforce.CheckError
	if !errors.As(err, &ce) || ce.Path() != "/colour" {
		t.Fatalf("WriteString = %d, %v; want an early verdict at /colour", n, err)
	}
	if want := strings.Index(answer, `"colour"`) + len(`"colour"`); n != want {
		t.Errorf("read %d bytes, want %d: up to the member's closing quote", n, want)
	}
	if whole := checkError(t, s.Check(answer)); whole.Path() != ce.Path() || whole.Repaired.String() != "fence" {
		t.Errorf("Check = %v (repaired %s), want the early verdict's pointer, fence repaired", whole, whole.Repaired)
	}
}

// repairCase is one answer of testdata/repair/corpus.jsonl, written in a
// form models produce: mended says whether every repair together makes
// it pass, and repaired which repairs that takes.
type repairCase struct {
	Name     string `json:"name"`
	Schema   string `json:"schema"`
	Answer   string `json:"answer"`
	Mended   bool   `json:"mended"`
	Repaired string `json:"repaired"`
}

// TestTheRepairCorpus: every answer of the corpus fails as written; those
// marked mended pass with every repair chosen, by the repairs named, and
// the others — two values, lossy coercions, near misses, no JSON — fail
// whatever is chosen.
func TestTheRepairCorpus(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "repair", "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	mended, wrong, total := map[enforce.Repairs]int{}, map[enforce.Repairs]int{}, map[bool]int{}
	sets := []enforce.Repairs{enforce.RepairFence, enforce.RepairFence | enforce.RepairProse, enforce.RepairFence | enforce.RepairSyntax | enforce.RepairProse, enforce.AllRepairs}
	for line := range strings.Lines(string(raw)) {
		var c repairCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		total[c.Mended]++
		t.Run(c.Name, func(t *testing.T) {
			s := mustCompile(t, c.Schema)
			if s.Check(c.Answer) == nil {
				t.Fatalf("%q passes as written", c.Answer)
			}
			for _, rs := range sets {
				m := s.WithRepairs(rs)
				err := m.Check(c.Answer)
				switch {
				case err == nil && c.Mended:
					mended[rs]++
				case err == nil:
					wrong[rs]++
				}
				if rs != enforce.AllRepairs {
					continue
				}
				got, applied := m.Repaired(c.Answer)
				switch {
				case c.Mended && err != nil:
					t.Errorf("with every repair: %v (mended to %q by %s)", err, got, applied)
				case c.Mended && applied.String() != c.Repaired:
					t.Errorf("repaired by %s, want %s", applied, c.Repaired)
				case !c.Mended && err == nil:
					t.Errorf("must not pass, but passes mended to %q by %s", got, applied)
				}
			}
		})
	}
	for _, rs := range sets {
		t.Logf("with %s: %d of the %d mendable answers pass, and %d of the %d that must not", rs, mended[rs], total[true], wrong[rs], total[false])
	}
}

// A mend that would take the answer past its size bound is not made: the
// answer is judged as written, not for a length the model did not write.
func TestAMendPastTheSizeBoundIsNotMade(t *testing.T) {
	s := mustCompile(t, `{"type": "array", "items": {"type": "string"}}`)
	answer := `"` + strings.Repeat("x", enforce.MaxAnswerBytes-2) + `"`
	strict := checkError(t, s.Check(answer))
	got := checkError(t, s.WithRepairs(enforce.RepairCoerce).Check(answer))
	if got.Stage != strict.Stage || got.Repaired != 0 || got.Issues[0] != strict.Issues[0] {
		t.Errorf("with coerce: %v (repaired %s), want the strict verdict %v", got, got.Repaired, strict)
	}
}

// TestRepairsStayLinearOnHostileAnswers: answers built to make the
// repairs search — many values, many fences, brackets that never close,
// bare words, forgotten commas — are judged in time linear in their
// size: 4 MiB takes no more than 8 times 1 MiB (4 times when linear; 16
// when quadratic), and each ends in a verdict.
func TestRepairsStayLinearOnHostileAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("judges answers of 4 MiB")
	}
	calls := mustCompile(t, `{"type": "array", "items": {"type": "object"}}`).WithRepairs(enforce.AllRepairs)
	object := mustCompile(t, repairSchema).WithRepairs(enforce.AllRepairs)
	fill := func(prefix, unit, suffix string, n int) string {
		return prefix + strings.Repeat(unit, (n-len(prefix)-len(suffix))/len(unit)) + suffix
	}
	for _, tt := range []struct {
		name                 string
		s                    *enforce.Schema
		prefix, unit, suffix string
	}{
		{"objects one after another, for an array", calls, "", "{\"a\": 1}\n", ""},
		{"fenced objects among prose, for an array", calls, "", "Call:\n```json\n{\"a\": 1}\n```\n", ""},
		{"bare words in arrays, for an array", calls, "", "see [x] ", ""},
		{"braces that never close, with bare words", object, "", "{sku: a\n", ""},
		{"one object of members with no commas", object, "{", "sku: a\n", "}"},
		{"an apostrophe before each bracket", calls, "", "it's [", ""},
		{"a fenced array beside many quoted ones", calls, "```json\n[{}]\n```\n", "[1] ", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			took := func(n int) time.Duration {
				answer := fill(tt.prefix, tt.unit, tt.suffix, n)
				best := time.Duration(1<<63 - 1)
				for range 3 {
					start := proc.CPUTime()
					err := tt.s.Check(answer)
					best = min(best, proc.CPUTime()-start)
					var ce *enforce.CheckError
					if !errors.As(err, &ce) {
						t.Fatalf("Check of %d bytes = %v, want a *CheckError", len(answer), err)
					}
				}
				return best
			}
			// Under the race detector, tenfold slower, a quarter of each
			// size shows the same growth.
			large := enforce.MaxAnswerBytes
			if underRace {
				large /= 4
			}
			tSmall, tLarge := took(large/4), took(large)
			if tLarge > 8*tSmall+50*time.Millisecond {
				t.Errorf("%d bytes took %v of processor time, %d bytes %v: more than 8 times", large, tLarge, large/4, tSmall)
			}
		})
	}
}
