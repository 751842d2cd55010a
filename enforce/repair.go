package enforce

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/enforcer-go/enforcer/enforce/internal/repair"
)

// Repairs is a set of exact mends of an answer's form
// ([Schema.WithRepairs]); combine them with |. They apply in the order
// declared, which String and the JSON (an array of names) follow. An
// answer that passes as written is never mended.
type Repairs uint8

const (
	// RepairFence: a markdown fence around the answer (backticks or
	// tildes), with any info string, closed or not, and nothing but
	// whitespace outside it.
	RepairFence Repairs = 1 << iota
	// RepairSyntax: trailing commas, // and /* */ comments, single-quoted
	// strings, unquoted member names, Python's True, False and None, and
	// a missing comma between an object's members on separate lines.
	RepairSyntax
	// RepairQuote: a member's unquoted string value (day: Monday)
	// where the schema admits a string there; never a word some language
	// reads as a literal (null, nil, none, true, false, NaN, inf,
	// Infinity, undefined, NA, undef, nullptr, Nothing, missing, in any
	// case), nor yes, no, on, off where a boolean is admitted, nor an
	// array's bare items.
	RepairQuote
	// RepairProse: exactly one JSON object or array inside text before
	// and/or after it, where the text has no second reading (the ledger
	// guide's rule): no second value, whole or broken, no words taking it
	// back or doubting it, no cut at the output limit. Of two values, one
	// that alone is
	// a fence's content and alone passes is taken.
	RepairProse
	// RepairGather: where the root schema admits an array and no object,
	// several complete values — fenced blocks, or values in or between
	// text — gathered in their order into one array: an object is an
	// item, an array's items are items (unless the items may be arrays).
	// Only values set out as one list (nothing but fences, commas and
	// list markers between them, or each part numbered); never
	// alternatives, corrections, templates or a value said twice.
	RepairGather
	// RepairCoerce: where no subschema that may apply admits a string, a
	// string that spells a JSON number (an integer, where only integers
	// are admitted) becomes that number, and "true" or "false" that
	// boolean; where only an array is admitted, a string holding a JSON
	// array becomes that array, and another single value an array of it
	// (but null, "" and a string holding a separator — a comma,
	// semicolon, bar, slash, ampersand, plus, tab, line break, "and" or
	// "or" — which read two ways, are left). Nothing is rounded,
	// clipped, guessed or invented.
	// A tool call's arguments ([CallLedger]) written as one JSON string
	// where the parameters admit none become the one JSON object the
	// string holds, or {} for a string of nothing where {} passes.
	RepairCoerce
	// RepairLabel: a [Choice]'s or [MultiLabel]'s label written in
	// another case, with whitespace around it, or with a trailing full
	// stop, where exactly one label is so written, also in full and in
	// Turkish case folding (KIT is left when the labels are kit and kıt).
	RepairLabel
	// RepairToolText: tool calls a provider's server left in a reply's
	// text, read back as calls where there is exactly one reading
	// ([ReadTextCalls]); an agent with tools does so, and the call's row
	// names it ([Call.FromText]). It never mends an answer.
	RepairToolText

	// AllRepairs is every repair.
	AllRepairs = RepairFence | RepairSyntax | RepairQuote | RepairProse | RepairGather | RepairCoerce | RepairLabel | RepairToolText
)

// Each repair's bit is the repair room's: a difference does not compile
// (a negative constant overflows uint).
const (
	_ = uint(int(AllRepairs)-int(repair.All)) + uint(int(repair.All)-int(AllRepairs))
	_ = uint(int(RepairFence)-int(repair.Fence)) + uint(int(repair.Fence)-int(RepairFence))
	_ = uint(int(RepairSyntax)-int(repair.Syntax)) + uint(int(repair.Syntax)-int(RepairSyntax))
	_ = uint(int(RepairQuote)-int(repair.Quote)) + uint(int(repair.Quote)-int(RepairQuote))
	_ = uint(int(RepairProse)-int(repair.Prose)) + uint(int(repair.Prose)-int(RepairProse))
	_ = uint(int(RepairGather)-int(repair.Gather)) + uint(int(repair.Gather)-int(RepairGather))
	_ = uint(int(RepairCoerce)-int(repair.Coerce)) + uint(int(repair.Coerce)-int(RepairCoerce))
	_ = uint(int(RepairLabel)-int(repair.Label)) + uint(int(repair.Label)-int(RepairLabel))
	_ = uint(int(RepairToolText)-int(repair.ToolText)) + uint(int(repair.ToolText)-int(RepairToolText))
)

// ParseRepairs reads a comma-separated list of repair names ("fence,prose";
// "all" for [AllRepairs]; "" for none).
func ParseRepairs(names string) (Repairs, error) {
	set, unknown := repair.Parse(names)
	if unknown != "" {
		return 0, fmt.Errorf("enforce: unknown repair %q (want %s or all)", unknown, AllRepairs)
	}
	return Repairs(set), nil
}

// String is the names of the set in the order they apply, joined by
// commas.
func (rs Repairs) String() string { return repair.Set(rs).String() }

// MarshalJSON writes the names as an array, in the order they apply.
func (rs Repairs) MarshalJSON() ([]byte, error) {
	names := []string{}
	if rs &= AllRepairs; rs != 0 {
		names = strings.Split(rs.String(), ",")
	}
	return json.Marshal(names)
}

// UnmarshalJSON reads an array of names.
func (rs *Repairs) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	set, err := ParseRepairs(strings.Join(names, ","))
	if err != nil {
		return err
	}
	*rs = set
	return nil
}

// WithRepairs returns a copy of s that judges an answer failing as
// written as the repairs rs mend it ([Schema.Repaired]). Without repairs
// (the default) both stages are strict. Bits outside [AllRepairs] are
// ignored, and so is [RepairToolText], which reads replies, not answers.
func (s *Schema) WithRepairs(rs Repairs) *Schema {
	c := *s
	c.repairs = rs & AllRepairs &^ RepairToolText
	c.typed = new(sync.Map)
	return &c
}

// Repairs returns the repairs s applies.
func (s *Schema) Repairs() Repairs { return s.repairs }

// Repaired returns the text s judges for answer and the repairs that made
// it: answer itself and none when it keeps the contract as written, when
// s has no repairs, or when none of them applies. For a [Choice] or
// [MultiLabel] the text is what [RepairLabel] made of the answer: the
// label, or the JSON the labels were mended in.
func (s *Schema) Repaired(answer string) (string, Repairs) {
	text, applied, _ := s.judgeForm(answer)
	return text, applied
}

// checkForm is Check that also says what was judged: the text (answer, or
// what s's repairs made of it) and the repairs applied. A mended answer
// that still fails returns the mended text's failure, which names the
// repairs ([CheckError.Repaired]).
func (s *Schema) checkForm(answer string) (string, Repairs, error) {
	if s.repairs == 0 {
		return answer, 0, s.checkStrict(answer)
	}
	text, set, err := s.mender().Judge(answer, s.maxAnswerBytes(), func() error { return tooLong(s.maxAnswerBytes()) })
	if ce, ok := err.(*CheckError); ok && set != 0 {
		ce.Repaired = Repairs(set)
	}
	return text, Repairs(set), err
}

// mender is s's repairs, asking s's strict verdicts.
func (s *Schema) mender() repair.Mender {
	return repair.Mender{Set: repair.Set(s.repairs), Plan: s.plan, Contract: (*repairContract)(s)}
}

// repairContract is a Schema as the repair room asks of it.
type repairContract Schema

func (c *repairContract) Strict(text string) error { return (*Schema)(c).checkStrict(text) }

func (c *repairContract) Unparsed(err error) bool {
	ce, ok := err.(*CheckError)
	return ok && ce.Stage == StageJSONParse
}

func (c *repairContract) Check(answer string) error { return (*Schema)(c).Check(answer) }

func (c *repairContract) TooLong() error { return tooLong((*Schema)(c).maxAnswerBytes()) }

func (c *repairContract) Incremental(schemaVerdicts bool) repair.Incremental {
	strict := *(*Schema)(c)
	strict.repairs = 0
	return strict.stream(streamHost{s: &strict}, !schemaVerdicts)
}
