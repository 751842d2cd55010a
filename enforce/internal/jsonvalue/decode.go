package jsonvalue

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unsafe"
)

// Unmarshal decodes a JSON answer into v with exactly the results of
// json.Unmarshal — same values, same errors — but faster for the shapes
// answers usually have: into a zero value, it decodes with enforce's own
// parser straight into v, and falls back to json.Unmarshal for anything
// whose meaning it does not own (custom unmarshalers such as time.Time,
// embedded structs, ",string" fields, []byte, member names that match a
// field only case-insensitively, and any error).
func Unmarshal(answer string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && allZeroBits(rv) && fastType(rv.Type().Elem()) {
		// Decode into a fresh value so a fallback starts clean.
		fresh := reflect.New(rv.Type().Elem())
		p := Parser{S: answer}
		p.SkipSpace()
		if p.into(fresh.Elem()) && p.Err == nil {
			p.SkipSpace()
			if p.I == len(answer) {
				rv.Elem().Set(fresh.Elem())
				return nil
			}
		}
	}
	return json.Unmarshal([]byte(answer), v)
}

// allZeroBits reports whether *p is all zero bytes: a fresh value. (IsZero
// would also accept -0.0, which encoding/json may leave in place.)
func allZeroBits(p reflect.Value) bool {
	b := unsafe.Slice((*byte)(p.UnsafePointer()), p.Type().Elem().Size())
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

var (
	fastTypes       sync.Map // reflect.Type → bool
	jsonNumberType  = reflect.TypeFor[json.Number]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fastType reports whether into decodes every value of t exactly as
// encoding/json would. Only final answers are cached, so a recursive type
// or a concurrent first use never sees a provisional one.
func fastType(t reflect.Type) bool {
	if ok, cached := fastTypes.Load(t); cached {
		return ok.(bool)
	}
	ok := checkFast(t, map[reflect.Type]bool{})
	fastTypes.Store(t, ok)
	return ok
}

// checkFast walks every type reachable from t once; a type met again is
// being checked further up, and the AND of all their own rules is t's.
func checkFast(t reflect.Type, seen map[reflect.Type]bool) bool {
	if ok, cached := fastTypes.Load(t); cached {
		return ok.(bool)
	}
	if seen[t] {
		return true
	}
	seen[t] = true
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		t.Implements(textType) || reflect.PointerTo(t).Implements(textType) {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Pointer, reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return false // []byte is base64 in encoding/json
		}
		if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Pointer {
			return false // **T, and pointer cycles such as type P *P
		}
		return checkFast(t.Elem(), seen)
	case reflect.Map:
		k := t.Key()
		if k.Kind() != reflect.String || k.Implements(textType) || reflect.PointerTo(k).Implements(textType) {
			return false
		}
		return checkFast(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				return false
			}
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, opts := parseTag(tag)
			if !isASCII(name) || !isASCII(f.Name) {
				return false // Unicode case folding: encoding/json's rules
			}
			if opts != "" && !onlyOmit(opts) {
				return false // ",string" and options we do not know
			}
			if !checkFast(f.Type, seen) {
				return false
			}
		}
		return true
	}
	return false
}

// structFields maps JSON member names to field indexes, as encoding/json
// names them.
type structFields struct {
	byName map[string]int
	folded map[string]bool // lower-cased names, to spot case-insensitive matches
}

var fieldCache sync.Map // reflect.Type → *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	sf := &structFields{byName: map[string]int{}, folded: map[string]bool{}}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _ := parseTag(tag)
		if !validTagName(name) {
			name = f.Name
		}
		if _, dup := sf.byName[name]; dup {
			// Two fields with one name: encoding/json's rules decide.
			sf.byName[name] = -1
			continue
		}
		sf.byName[name] = i
		sf.folded[foldASCII(name)] = true
	}
	fieldCache.Store(t, sf)
	return sf
}

// into parses the next value straight into v; false means "let
// encoding/json do it" (a syntax error, a type mismatch, a duplicate or
// case-folded member), never a success that differs from it.
func (p *Parser) into(v reflect.Value) bool {
	if p.I >= len(p.S) {
		return false
	}
	c := p.S[p.I]
	if c == 'n' {
		if p.literal("null", nil); p.Err != nil {
			return false
		}
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		}
		return true // null leaves other kinds alone
	}
	isNum := c == '-' || c >= '0' && c <= '9'
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return p.into(v.Elem())
	case reflect.Interface:
		x := p.Value()
		if p.Err != nil {
			return false
		}
		g, ok := toGo(x)
		if ok {
			v.Set(reflect.ValueOf(&g).Elem())
		}
		return ok
	case reflect.Bool:
		switch c {
		case 't':
			p.literal("true", nil)
			v.SetBool(true)
		case 'f':
			p.literal("false", nil)
			v.SetBool(false)
		default:
			return false
		}
		return p.Err == nil
	case reflect.String:
		if v.Type() == jsonNumberType {
			if !isNum {
				return false
			}
			n, _ := p.Number().(json.Number)
			v.SetString(string(n))
			return p.Err == nil
		}
		if c != '"' {
			return false
		}
		str := p.Str()
		v.SetString(str)
		return p.Err == nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !isNum {
			return false
		}
		n, _ := p.Number().(json.Number)
		i, err := strconv.ParseInt(string(n), 10, 64)
		if p.Err != nil || err != nil || v.OverflowInt(i) {
			return false
		}
		v.SetInt(i)
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !isNum {
			return false
		}
		n, _ := p.Number().(json.Number)
		u, err := strconv.ParseUint(string(n), 10, 64)
		if p.Err != nil || err != nil || v.OverflowUint(u) {
			return false
		}
		v.SetUint(u)
		return true
	case reflect.Float32, reflect.Float64:
		if !isNum {
			return false
		}
		n, _ := p.Number().(json.Number)
		f, err := strconv.ParseFloat(string(n), v.Type().Bits())
		if p.Err != nil || err != nil || v.OverflowFloat(f) {
			return false
		}
		v.SetFloat(f)
		return true
	case reflect.Slice, reflect.Array:
		if c != '[' {
			return false
		}
		return p.intoArray(v)
	case reflect.Map, reflect.Struct:
		if c != '{' {
			return false
		}
		return p.intoObject(v)
	}
	return false
}

func (p *Parser) intoArray(v reflect.Value) bool {
	if !p.enter() {
		return false
	}
	defer func() { p.depth-- }()
	p.I++ // '['
	isSlice := v.Kind() == reflect.Slice
	n := 0
	p.SkipSpace()
	if p.I < len(p.S) && p.S[p.I] == ']' {
		p.I++
	} else {
		for {
			p.SkipSpace()
			switch {
			case isSlice:
				if n >= v.Cap() { // grown as encoding/json grows it
					v.Grow(1)
				}
				v.SetLen(n + 1)
				if !p.into(v.Index(n)) {
					return false
				}
			case n < v.Len():
				if !p.into(v.Index(n)) {
					return false
				}
			default:
				if p.Value(); p.Err != nil { // beyond the array: parsed, dropped
					return false
				}
			}
			n++
			p.SkipSpace()
			if p.I >= len(p.S) {
				return false
			}
			if p.S[p.I] == ']' {
				p.I++
				break
			}
			if p.S[p.I] != ',' {
				return false
			}
			p.I++
		}
	}
	for i := n; !isSlice && i < v.Len(); i++ {
		v.Index(i).SetZero()
	}
	if isSlice && n == 0 {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	return true
}

func (p *Parser) intoObject(v reflect.Value) bool {
	if !p.enter() {
		return false
	}
	defer func() { p.depth-- }()
	p.I++ // '{'
	var sf *structFields
	var seen []bool
	if v.Kind() == reflect.Struct {
		sf = fieldsOf(v.Type())
		seen = make([]bool, v.NumField())
	} else if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	p.SkipSpace()
	if p.I < len(p.S) && p.S[p.I] == '}' {
		p.I++
		return true
	}
	for {
		p.SkipSpace()
		if p.I >= len(p.S) || p.S[p.I] != '"' {
			return false
		}
		k := p.Str()
		p.SkipSpace()
		if p.Err != nil || p.I >= len(p.S) || p.S[p.I] != ':' {
			return false
		}
		p.I++
		p.SkipSpace()
		if sf == nil {
			kv := reflect.ValueOf(k).Convert(v.Type().Key())
			if v.MapIndex(kv).IsValid() {
				return false // a duplicate member: encoding/json's rules
			}
			ev := reflect.New(v.Type().Elem()).Elem()
			if !p.into(ev) {
				return false
			}
			v.SetMapIndex(kv, ev)
		} else if i, ok := sf.byName[k]; ok {
			if i < 0 || seen[i] {
				return false // an ambiguous field or a duplicate member
			}
			seen[i] = true
			if !p.into(v.Field(i)) {
				return false
			}
		} else {
			if !isASCII(k) || sf.folded[foldASCII(k)] {
				return false // a case-insensitive match: encoding/json's order rules
			}
			if p.Value(); p.Err != nil { // unknown members are ignored
				return false
			}
		}
		p.SkipSpace()
		if p.I >= len(p.S) {
			return false
		}
		switch p.S[p.I] {
		case ',':
			p.I++
		case '}':
			p.I++
			return true
		default:
			return false
		}
	}
}

// toGo converts a parsed value to what encoding/json stores in an any:
// float64 numbers.
func toGo(x any) (any, bool) {
	switch x := x.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			g, ok := toGo(e)
			if !ok {
				return nil, false
			}
			out[i] = g
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			g, ok := toGo(e)
			if !ok {
				return nil, false
			}
			out[k] = g
		}
		return out, true
	}
	return x, true
}

func parseTag(tag string) (name, opts string) {
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:]
		}
	}
	return tag, ""
}

func onlyOmit(opts string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o != "omitempty" && o != "omitzero" {
			return false
		}
	}
	return true
}

// validTagName is encoding/json's rule for a usable name in a tag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
			// Backslash and quotes are reserved; other punctuation is allowed.
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
