package engine

import (
	"fmt"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// Draft is a JSON Schema dialect, declared with $schema. The values are
// ordered by release.
type Draft int

const (
	// Draft4, Draft6 and draft7 are gojsonschema's own.
	Draft4 Draft = 4
	Draft6 Draft = 6
	draft7 Draft = 7
	// draft2019 and draft2020 are checked by translating to draft-07
	// where the meaning is the same, and refusing what cannot be
	// translated.
	draft2019 Draft = 2019
	draft2020 Draft = 2020
)

// String is d's name: "draft-07", "2020-12", ….
func (d Draft) String() string {
	switch d {
	case draft2019:
		return "2019-09"
	case draft2020:
		return "2020-12"
	}
	return fmt.Sprintf("draft-%02d", int(d))
}

var dialects = map[string]Draft{
	"http://json-schema.org/draft-04/schema":       Draft4,
	"http://json-schema.org/draft-06/schema":       Draft6,
	"http://json-schema.org/draft-07/schema":       draft7,
	"https://json-schema.org/draft/2019-09/schema": draft2019,
	"https://json-schema.org/draft/2020-12/schema": draft2020,
}

// dialectOf reads the value of $schema at loc.
func dialectOf(v any, loc string) (Draft, error) {
	s, ok := v.(string)
	if !ok {
		return 0, &Error{Keyword: "$schema", Location: loc, Reason: "must be a string"}
	}
	d, ok := dialects[strings.TrimSuffix(s, "#")]
	if !ok {
		return 0, &Error{Keyword: "$schema", Location: loc, Reason: fmt.Sprintf("unsupported dialect %q (supported: draft-04, draft-06, draft-07, 2019-09, 2020-12; none means draft-07)", s)}
	}
	return d, nil
}

// compileDraft is the draft gojsonschema compiles a document of root
// dialect d as: d itself when every $schema in it agrees on draft-04,
// -06 or -07, else draft-07. plain: no object in it names an
// identifier ($id, id, $anchor) or, below the root, a dialect, so every
// subschema's base URI is the document's own and the index has nothing
// to record (see Auditor.indexRoot). objects counts its objects.
func compileDraft(root any, d Draft) (target Draft, plain bool, objects int) {
	same, plain := d <= draft7, true
	var scan func(v any, depth int)
	scan = func(v any, depth int) {
		if !same && !plain {
			return
		}
		if depth > jsonvalue.MaxDepth {
			// Beyond what the index reads: the index is left to decide.
			plain = false
			return
		}
		switch v := v.(type) {
		case map[string]any:
			objects++
			if s, ok := v["$schema"]; ok && depth > 0 {
				plain = false
				if s, ok := s.(string); ok {
					if nd, known := dialects[strings.TrimSuffix(s, "#")]; known && nd != d {
						same = false
					}
				}
			}
			if plain {
				// Any object, whatever keyword holds it: a superset of
				// the subschemas the index reads.
				_, id := v["$id"]
				_, oldID := v["id"]
				_, anchor := v["$anchor"]
				plain = !id && !oldID && !anchor
			}
			for _, e := range v {
				scan(e, depth+1)
			}
		case []any:
			for _, e := range v {
				scan(e, depth+1)
			}
		}
	}
	scan(root, 0)
	if same {
		return d, plain, objects
	}
	return draft7, plain, objects
}
