package native

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// A schema is held as a tree whose objects keep their members in order:
// a provider writes an answer's members in the order its schema lists
// them, so the lowered schema keeps the contract's order. Values are
// *object, []any, string, json.Number, bool and nil.

type member struct {
	key string
	val any
}

type object struct {
	members []member
	// index holds each member's place by its key once the object has more
	// than indexFrom members, so that get, set and del cost the same for
	// 100,000 members as for three: scanning, 100,000 properties took
	// minutes to decode and lower. nil until then; clone leaves it out.
	index map[string]int
}

// indexFrom is the most members an object scans for a key.
const indexFrom = 8

// find is the place of key among o's members, or -1.
func (o *object) find(key string) int {
	if len(o.members) <= indexFrom {
		for i, m := range o.members {
			if m.key == key {
				return i
			}
		}
		return -1
	}
	if o.index == nil {
		o.index = make(map[string]int, cap(o.members))
		for i, m := range o.members {
			if _, seen := o.index[m.key]; !seen {
				o.index[m.key] = i // the first, as a scan finds it
			}
		}
	}
	if i, ok := o.index[key]; ok {
		return i
	}
	return -1
}

func (o *object) get(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.members[i].val, true
	}
	return nil, false
}

func (o *object) set(key string, val any) {
	if i := o.find(key); i >= 0 {
		o.members[i].val = val
		return
	}
	o.members = append(o.members, member{key, val})
	if o.index != nil {
		o.index[key] = len(o.members) - 1
	}
}

func (o *object) del(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.members = append(o.members[:i], o.members[i+1:]...)
	// The places after i moved; the index is built again when next needed
	// (del is called a few times per lowering, not per member).
	o.index = nil
}

// maxDepth bounds the nesting of a contract read here; CompileSchema
// accepts far less.
const maxDepth = 512

// decode reads one JSON value, numbers kept as written.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the schema")
	}
	return v, nil
}

func decodeValue(d *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &object{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			o.set(k.(string), v) // a repeated member: the last one counts, as in encoding/json
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for d.More() {
			v, err := decodeValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token()
		return a, err
	}
	return tok, nil
}

// encode writes v as compact JSON, members in order.
func encode(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case *object:
		buf.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, m.key)
			buf.WriteByte(':')
			encode(buf, m.val)
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			encode(buf, e)
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, v)
	case json.Number:
		buf.WriteString(string(v))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	default:
		buf.WriteString("null")
	}
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always marshals
	buf.Write(b)
}

// clone copies a tree, so that lowering never changes what it was given.
func clone(v any) any {
	switch v := v.(type) {
	case *object:
		o := &object{members: make([]member, len(v.members))} // index: built on use
		for i, m := range v.members {
			o.members[i] = member{m.key, clone(m.val)}
		}
		return o
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = clone(e)
		}
		return a
	}
	return v
}
