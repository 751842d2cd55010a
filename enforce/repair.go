package enforce

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/enforcer-go/enforcer/enforce/internal/engine"
	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
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
	// strings, unquoted member names, and Python's True, False and None.
	RepairSyntax
	// RepairProse: exactly one JSON object or array inside text before
	// and/or after it. Text that holds two such values is left alone: the
	// model was ambiguous.
	RepairProse
	// RepairCoerce: where no subschema that may apply admits a string, a
	// string that spells a JSON number (an integer, where only integers
	// are admitted) becomes that number, and "true" or "false" that
	// boolean; where only an array is admitted, a single value becomes an
	// array of it. Nothing is rounded, clipped, guessed or invented.
	RepairCoerce

	// AllRepairs is every repair.
	AllRepairs = RepairFence | RepairSyntax | RepairProse | RepairCoerce
)

var repairNames = [...]string{"fence", "syntax", "prose", "coerce"}

// ParseRepairs reads a comma-separated list of repair names ("fence,prose";
// "all" for [AllRepairs]; "" for none).
func ParseRepairs(names string) (Repairs, error) {
	var rs Repairs
	for _, name := range strings.Split(names, ",") {
		switch name = strings.TrimSpace(name); name {
		case "":
		case "all":
			rs |= AllRepairs
		default:
			i := slices.Index(repairNames[:], name)
			if i < 0 {
				return 0, fmt.Errorf("enforce: unknown repair %q (want fence, syntax, prose, coerce or all)", name)
			}
			rs |= 1 << i
		}
	}
	return rs, nil
}

// String is the names of the set in the order they apply, joined by
// commas.
func (rs Repairs) String() string {
	var b strings.Builder
	for i, name := range repairNames {
		if rs&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(name)
		}
	}
	return b.String()
}

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
// ignored.
func (s *Schema) WithRepairs(rs Repairs) *Schema {
	c := *s
	c.repairs = rs & AllRepairs
	c.typed = new(sync.Map)
	return &c
}

// Repairs returns the repairs s applies.
func (s *Schema) Repairs() Repairs { return s.repairs }

// Repaired returns the text s judges for answer and the repairs that made
// it: answer itself and none when it keeps the contract as written, when
// s has no repairs, or when none of them applies.
func (s *Schema) Repaired(answer string) (string, Repairs) {
	text, applied, _ := s.checkForm(answer)
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
	// An answer whose first byte can begin a JSON value is judged as
	// written first: most answers pass so, and are never mended. One
	// that cannot (a fence, prose) is mended first, and judged as
	// written only when no repair applies.
	var strict error
	judged := startsLikeJSON(answer)
	if judged {
		strict = s.checkStrict(answer)
		if strict == nil {
			return answer, 0, nil
		}
	}
	if len(answer) > s.maxAnswerBytes() {
		return answer, 0, tooLong(s.maxAnswerBytes()) // nothing of it is read; nothing is mended
	}
	text, applied, err := s.mend(answer, strict, judged)
	if len(text) > s.maxAnswerBytes() {
		applied = 0 // a mend past the bound would be judged for its length, not for what the model wrote
	}
	if applied == 0 {
		if !judged {
			strict = s.checkStrict(answer)
		}
		return answer, 0, strict
	}
	if ce, ok := err.(*CheckError); ok {
		ce.Repaired = applied
	}
	return text, applied, err
}

// startsLikeJSON reports whether the first byte of answer that is not
// whitespace can begin a JSON value.
func startsLikeJSON(answer string) bool {
	for i := 0; i < len(answer); i++ {
		switch c := answer[i]; {
		case isSpace(c):
		case c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
			return true
		default:
			return false
		}
	}
	return true
}

// mend applies s's repairs to an answer that fails as written (with
// strict, when judged), and returns the text they make, the repairs
// applied, and the strict verdict on that text.
func (s *Schema) mend(answer string, strict error, judged bool) (string, Repairs, error) {
	var applied Repairs
	text, err := answer, strict
	if s.repairs&RepairFence != 0 {
		if inner, ok := unfence(text); ok {
			text, err, judged = inner, s.checkStrict(inner), true
			applied |= RepairFence
		}
	}
	if !judged {
		err = s.checkStrict(text)
	}
	if unparsed(err) && s.repairs&RepairSyntax != 0 {
		if fixed, ok := relax(text); ok {
			if ferr := s.checkStrict(fixed); !unparsed(ferr) {
				text, err = fixed, ferr
				applied |= RepairSyntax
			}
		}
	}
	if unparsed(err) && s.repairs&RepairProse != 0 {
		if value, relaxed, ok := extract(text, s.repairs&RepairSyntax != 0, s.rootKinds()); ok {
			if relaxed {
				applied |= RepairSyntax
			}
			text, err = value, s.checkStrict(value)
			applied |= RepairProse
		}
	}
	if err != nil && !unparsed(err) && s.repairs&RepairCoerce != 0 {
		if coerced, ok := s.coerce(text); ok {
			text, err = coerced, s.checkStrict(coerced)
			applied |= RepairCoerce
		}
	}
	return text, applied, err
}

// unparsed reports whether err is a json-parse failure.
func unparsed(err error) bool {
	ce, ok := err.(*CheckError)
	return ok && ce.Stage == StageJSONParse
}

// rootKinds is what the schema's root admits, read generously (as the
// coerce repair reads it): every kind when that cannot be told.
func (s *Schema) rootKinds() engine.Kinds {
	c := coercer{s: s}
	if s.plan != nil {
		if k, ok := c.kinds(s.plan.Tree, 0); ok {
			return k
		}
	}
	return engine.KindObject | engine.KindArray
}

// validJSON reports whether text is exactly one JSON value.
func validJSON(text string) bool {
	_, err := jsonvalue.Parse(text)
	return err == nil
}

// unfence returns what a markdown fence around text holds: text must
// begin, after whitespace, with a run of three or more backticks or
// tildes and an info string on the rest of that line. A closing run of
// the same character at the end (whitespace aside) is removed; an
// answer with none (as some models send) keeps what follows the opening
// line.
func unfence(text string) (string, bool) {
	i := 0
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	if i == len(text) || (text[i] != '`' && text[i] != '~') {
		return "", false
	}
	fc := text[i]
	n := 0
	for i+n < len(text) && text[i+n] == fc {
		n++
	}
	if n < 3 {
		return "", false
	}
	nl := strings.IndexByte(text[i+n:], '\n')
	if nl < 0 {
		return "", false
	}
	if info := text[i+n : i+n+nl]; fc == '`' && strings.IndexByte(info, '`') >= 0 {
		return "", false // not a fence: CommonMark forbids a backtick there
	}
	inner := text[i+n+nl+1:]
	trimmed := strings.TrimRight(inner, " \t\r\n")
	j := len(trimmed)
	for j > 0 && trimmed[j-1] == fc {
		j--
	}
	if len(trimmed)-j >= 3 {
		inner = trimmed[:j]
	}
	return inner, true
}

// extract returns the one JSON object or array that text holds among
// other text. A candidate begins at a bracket outside any other bracket
// of the text (so a value inside a broken one is not taken for the
// answer), and is of a kind the schema's root admits (so "[1]" citing a
// source is no object's rival); with relaxed, the syntax repairs apply
// to it too (relaxedUsed says they were needed). Two candidates, or none,
// and it gives up, as it does when the search would read the text more
// than a few times over.
func extract(text string, relaxed bool, admit engine.Kinds) (value string, relaxedUsed bool, ok bool) {
	budget := 8*len(text) + 1<<16
	depth, found := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '{', '[':
			if depth > 0 {
				depth++
				continue
			}
			end, v, read := valueAt(text, i)
			usedRelax := false
			if end < 0 && relaxed {
				var more int
				end, v, more = relaxAt(text, i)
				read += more
				usedRelax = end >= 0
			}
			if budget -= read; budget < 0 {
				return "", false, false
			}
			if end < 0 {
				depth++
				continue
			}
			kind := engine.Kinds(engine.KindObject)
			if text[i] == '[' {
				kind = engine.KindArray
			}
			if admit&kind == 0 {
				i = end - 1 // whole, but it could never pass
				continue
			}
			if found++; found > 1 {
				return "", false, false
			}
			value, relaxedUsed = v, usedRelax
			i = end - 1
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return value, relaxedUsed, found == 1
}

// valueAt parses one strict JSON value at text[i:] and returns where it
// ends (-1 when it is not one) and its text, and how many bytes it read.
func valueAt(text string, i int) (end int, value string, read int) {
	p := jsonvalue.Parser{S: text, I: i}
	p.Value()
	if p.Err != nil {
		return -1, "", p.Err.Off - i + 1
	}
	return p.I, text[i:p.I], p.I - i
}
