package enforce_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/enforce"
)

// The prose and gather repairs act only where the text has one reading.
// These properties generate the families of text that has two — from
// random values and phrasings, not fixed strings — and assert that every
// repair together refuses each (the answer fails, so the model is asked),
// and that where a mend does happen it decodes to exactly the values the
// text holds.

// gen writes random answers: values of repairSchema (an order) or
// callsSchema's items (a call), spelt in random ways, and prose around
// them that says nothing of the values.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) gen { return gen{rand.New(rand.NewPCG(seed, 42))} }

func (g gen) pick(of ...string) string { return of[g.r.IntN(len(of))] }

func (g gen) word() string {
	return g.pick("lyon", "paris", "A-1", "B7", "weather.get", "sort_list", "math.hcf", "route", "Zürich", "x")
}

// order is an object repairSchema admits.
func (g gen) order() map[string]any {
	o := map[string]any{"sku": g.word(), "qty": g.r.IntN(1000)}
	if g.r.IntN(2) == 0 {
		o["note"] = g.pick("gift wrap", "leave at the door", "none")
	}
	return o
}

// call is an object callsSchema admits as an item.
func (g gen) call() map[string]any {
	c := map[string]any{"name": g.word()}
	if g.r.IntN(2) == 0 {
		c["n"] = g.r.IntN(100)
	}
	return c
}

// spell writes v as JSON, compact or indented, members in a random order.
func (g gen) spell(v map[string]any) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	sep, open, end := ", ", "{", "}"
	if g.r.IntN(2) == 0 {
		sep, open, end = ",\n  ", "{\n  ", "\n}"
	}
	var b strings.Builder
	b.WriteString(open)
	for i, k := range keys {
		if i > 0 {
			b.WriteString(sep)
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v[k])
		fmt.Fprintf(&b, "%s: %s", kb, vb)
	}
	b.WriteString(end)
	return b.String()
}

// fenced writes s in a markdown fence, sometimes.
func (g gen) maybeFenced(s string) string {
	if g.r.IntN(3) == 0 {
		return "```json\n" + s + "\n```"
	}
	return s
}

// lead is prose before a value that says nothing of it.
func (g gen) lead() string {
	return g.pick("", "Here is the JSON:\n", "Sure! Here it is:\n\n", "Result:\n", "Based on the context, the answer is\n", "The request would look like this:\n\n")
}

// tail is prose after a value that says nothing of it.
func (g gen) tail() string {
	return g.pick("", "\n\nLet me know if you need more.", "\nThis uses the function provided.", "\n\nThe values come from the question.")
}

// between is prose between calls that says nothing of them.
func (g gen) between(i int) string {
	return g.pick("\n", "\n\n", fmt.Sprintf("\n\nCall %d:\n", i+2), fmt.Sprintf("\n%d. ", i+2), "\n\nThen, for the second part:\n", "\nNext we need:\n")
}

// cut returns a proper prefix of s that keeps at least its first byte.
func (g gen) cut(s string) string { return s[:1+g.r.IntN(len(s)-1)] }

// The families: each returns a text with two readings, for the schema it
// names.
type family struct {
	name   string
	schema string
	text   func(g gen) string
}

var twoReadings = []family{
	{"an answer beside a broken one", repairSchema, func(g gen) string {
		a, b := g.spell(g.order()), g.spell(g.order())
		broken := a[:len(a)-1] + g.pick(" (I am sure)}", " and more}", "} wait", ", }}")
		if g.r.IntN(2) == 0 {
			return g.lead() + broken + "\nFor comparison, the other one was " + b + "."
		}
		return g.lead() + b + "\n\n" + broken
	}},
	{"a value inside a broken answer", repairSchema, func(g gen) string {
		a, b := g.spell(g.order()), g.spell(g.order())
		return g.lead() + a[:len(a)-1] + `, "note": "use } to close", "rejected": ` + b + " (sure)}" + g.tail()
	}},
	{"an answer retracted, the correction cut off", repairSchema, func(g gen) string {
		a, b := g.spell(g.order()), g.spell(g.order())
		return g.lead() + g.maybeFenced(a) + "\n\n" + g.pick("Hmm. ", "On reflection: ", "", "Wait, that's wrong. ", "Actually no. ") +
			g.pick("Corrected: ", "The correct JSON is: ```json\n", "Here is the right one:\n", "New version: ") + g.cut(b)
	}},
	{"an answer taken back", repairSchema, func(g gen) string {
		a := g.spell(g.order())
		return g.lead() + g.maybeFenced(a) + "\n\n" + g.pick("Wait", "Sorry", "Oops", "Actually", "Scratch that", "Disregard this") + g.pick(", that's wrong.", ": it is a mistake.", ".", " — I was mistaken.")
	}},
	{"alternatives", callsSchema, func(g gen) string {
		a, b := g.spell(g.call()), g.spell(g.call())
		if g.r.IntN(2) == 0 {
			a, b = "```json\n"+a+"\n```", "```json\n"+b+"\n```"
		}
		return g.pick("You could call ", "Either\n", "", "Try ") + a + g.pick(" or, instead, ", "\nor, if it is full,\n", "\n\nAlternatively:\n", "\nOtherwise call\n", "\nor rather\n", " OR ") + b + g.tail()
	}},
	{"a retraction between calls", callsSchema, func(g gen) string {
		a, b := g.spell(g.call()), g.spell(g.call())
		return "Call 1: " + a + "\n" + g.pick("Wait, that's wrong.", "Sorry, correction:", "Oops, a mistake.", "Actually,") + " Call 1: " + b
	}},
	{"a template before the calls", callsSchema, func(g gen) string {
		tpl := map[string]any{"name": g.pick("<function>", "<name>", "{function}", "...", "{{tool}}")}
		if g.r.IntN(2) == 0 {
			tpl["n"] = g.pick("<n>", "…")
		}
		n := 2 + g.r.IntN(3)
		var b strings.Builder
		b.WriteString(g.pick("Each call has the form ", "Calls look like ", "Format: ", "") + g.spell(tpl) + g.pick(". Calls: ", "\n\nNow:\n", "\n"))
		for i := range n {
			if i > 0 {
				b.WriteString(g.between(i - 1))
			}
			b.WriteString(g.spell(g.call()))
		}
		return b.String()
	}},
	{"a template shown in words", callsSchema, func(g gen) string {
		return g.pick("For example, ", "e.g. ", "A template: ", "Example:\n") + g.spell(g.call()) + g.pick("\nNow the calls:\n", ". Real ones: ") + g.spell(g.call()) + "\n" + g.spell(g.call())
	}},
	{"a restatement", callsSchema, func(g gen) string {
		c := g.call()
		text := "Call 1: " + g.spell(c)
		for i := range g.r.IntN(2) {
			text += g.between(i) + g.spell(g.call())
		}
		return text + g.pick("\nTo be clear, call 1 again: ", "\n\n", "\ni.e. ", "\nRepeated: ") + g.spell(c)
	}},
	{"alternatives in words no list knows", callsSchema, func(g gen) string {
		// Random words stand for any language's "or, if that fails": with
		// no number before each value and text between them, the values
		// may be choices, whatever the words say.
		word := func() string {
			var b strings.Builder
			for range 2 + g.r.IntN(6) {
				b.WriteByte(byte('a' + g.r.IntN(26)))
			}
			return b.String()
		}
		a, b := g.spell(g.call()), g.spell(g.call())
		return g.lead() + a + "\n" + word() + " " + word() + g.pick(":", ",", "") + "\n" + b + g.tail()
	}},
	{"alternatives set side by side", callsSchema, func(g gen) string {
		a, b := g.spell(g.call()), g.spell(g.call())
		return g.pick("", "Option A: ", "Choice 1: ") + a + g.pick("\nvs\n", " / ", "\nOption B: ", "\nIf that fails, ", "\nNo, call this: ", "\nreplace with ", "\nor maybe\n", "\nBut if Paris is full: ") + b
	}},
	{"an answer offered in doubt", repairSchema, func(g gen) string {
		return g.lead() + g.maybeFenced(g.spell(g.order())) + g.pick(" — or ", " (not sure, ", "\nMaybe ", "\nPerhaps ", "\nI'm not certain; ", "\nThat is incorrect; ", "\nIgnore the above; ") + g.word() + g.pick(".", ")", "")
	}},
	{"a call beside an array", callsSchema, func(g gen) string {
		arr := "[" + g.spell(g.call()) + "]"
		one := g.spell(g.call())
		if g.r.IntN(2) == 0 {
			return g.lead() + arr + "\n" + g.pick("and also ", "plus ", "") + one
		}
		return g.lead() + one + "\n" + g.pick("and also ", "plus ", "") + arr
	}},
}

func TestRepairsRefuseEveryGeneratedSecondReading(t *testing.T) {
	for fi, f := range twoReadings {
		t.Run(f.name, func(t *testing.T) {
			g := newGen(uint64(fi))
			s := mustCompile(t, f.schema).WithRepairs(enforce.AllRepairs)
			for range 300 {
				text := f.text(g)
				if err := s.Check(text); err == nil {
					got, applied := s.Repaired(text)
					t.Fatalf("%q passes, mended to %q by %s: it has two readings", text, got, applied)
				}
			}
		})
	}
}

// Where the text holds one value, or calls set out one after another, the
// mend decodes to exactly what the text holds.
func TestAMendDecodesToTheValuesTheTextHolds(t *testing.T) {
	g := newGen(7)
	orders := mustCompile(t, repairSchema).WithRepairs(enforce.AllRepairs)
	calls := mustCompile(t, callsSchema).WithRepairs(enforce.AllRepairs)
	for range 300 {
		o := g.order()
		text := g.lead() + g.maybeFenced(g.spell(o)) + g.tail()
		holdMend(t, orders, text, o)

		n := 2 + g.r.IntN(3)
		want := make([]any, n)
		var b strings.Builder
		b.WriteString(g.lead())
		fence := g.r.IntN(2) == 0
		for i := range n {
			c := g.call()
			c["n"] = 100*i + g.r.IntN(100) // no call said twice
			want[i] = c
			if i > 0 {
				b.WriteString(g.between(i - 1))
			}
			if fence {
				b.WriteString("```json\n" + g.spell(c) + "\n```")
			} else {
				b.WriteString(g.spell(c))
			}
		}
		b.WriteString(g.tail())
		holdMend(t, calls, b.String(), want)
	}
}

// holdMend asserts that s mends text, and that the mend decodes to want.
func holdMend(t *testing.T, s *enforce.Schema, text string, want any) {
	t.Helper()
	got, applied := s.Repaired(text)
	if err := s.Check(text); err != nil {
		t.Fatalf("%q: Check = %v (mended to %q by %s), want it mended", text, err, got, applied)
	}
	var is any
	wb, _ := json.Marshal(want)
	var was any
	if json.Unmarshal([]byte(got), &is) != nil || json.Unmarshal(wb, &was) != nil || !reflect.DeepEqual(is, was) {
		t.Fatalf("%q mended by %s to %q, want %s", text, applied, got, wb)
	}
}
