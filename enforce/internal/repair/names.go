package repair

import "strings"

// kinds names each repair (bit i is entry i) and says in our words what
// it did, for the corrective message: adding a repair adds a constant
// and a line here.
var kinds = [...]struct{ name, words string }{
	{"fence", "removed a markdown fence"},
	{"syntax", "rewrote relaxed syntax as JSON"},
	{"quote", "quoted unquoted words where a string belongs"},
	{"prose", "took the JSON value out of the text around it"},
	{"gather", "gathered separate values into one array, in order"},
	{"coerce", "read strings as the numbers or booleans they spell, or a value as an array of it"},
	{"label", "read a label written in another case, with spaces around it or a full stop after it, as the one label it spells"},
	{"tooltext", "read the tool calls written in your reply's text as calls"},
}

// Parse reads a comma-separated list of repair names ("all" for All, ""
// for none); unknown is the first name that is none, "" when all are.
func Parse(names string) (s Set, unknown string) {
	for _, name := range strings.Split(names, ",") {
		switch name = strings.TrimSpace(name); name {
		case "":
		case "all":
			s |= All
		default:
			i := 0
			for i < len(kinds) && kinds[i].name != name {
				i++
			}
			if i == len(kinds) {
				return 0, name
			}
			s |= 1 << i
		}
	}
	return s, ""
}

// String is the names of s in the order they apply, joined by commas.
func (s Set) String() string { return s.join(func(i int) string { return kinds[i].name }, ",") }

// Words says in our words what the repairs of s did.
func (s Set) Words() string { return s.join(func(i int) string { return kinds[i].words }, "; ") }

func (s Set) join(of func(i int) string, sep string) string {
	var b strings.Builder
	for i := range kinds {
		if s&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteString(sep)
			}
			b.WriteString(of(i))
		}
	}
	return b.String()
}
