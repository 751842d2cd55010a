package engine

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// index is what resolving a $ref needs, gathered before the walk: every
// schema resource by its absolute URI, every plain-name anchor, and the
// base URI each subschema's $ref resolves against.
type index struct {
	resources map[string]string // absolute URI, no fragment → location
	anchors   map[string]string // absolute URI "#" name → location
	base      map[string]string // location → base URI
}

// defaultBase is the base URI of a schema without an absolute $id: a
// reference resolves within the document or refers outside it.
const defaultBase = "urn:enforcer:schema"

// ambiguous stands for the location of an identifier two subschemas
// declare.
const ambiguous = "\x00"

// indexRoot indexes the document from its root.
func (a *Auditor) indexRoot() error {
	if a.plain {
		// Every base is defaultBase (a missing entry of base means it),
		// the root its one resource, and no anchor: the walk below
		// would record only that, and refuse nothing.
		a.ix = index{resources: map[string]string{defaultBase: ""}}
		return nil
	}
	a.ix = index{resources: map[string]string{}, anchors: map[string]string{}, base: map[string]string{}}
	return a.index(a.root, "", defaultBase, a.draft, 0)
}

// index records the identifiers of s, at loc in dialect d under base
// URI base, and of its subschemas.
func (a *Auditor) index(s any, loc, base string, d Draft, depth int) error {
	m, ok := s.(map[string]any)
	if !ok || depth > jsonvalue.MaxDepth {
		return nil
	}
	if _, done := a.ix.base[loc]; done {
		return nil
	}
	if v, ok := m["$schema"]; ok && loc != "" {
		nd, err := dialectOf(v, loc)
		if err != nil {
			return err
		}
		d = nd
	}
	if loc == "" {
		a.ix.resources[base] = ""
	}
	idKey := "$id"
	if d == Draft4 {
		idKey = "id"
	}
	_, isRef := m["$ref"]
	if id, ok := m[idKey].(string); ok && !(isRef && d < draft2019) { // before 2019-09, $ref hides its siblings
		u, err := url.Parse(id)
		if err != nil {
			return &Error{Keyword: idKey, Location: loc, Reason: fmt.Sprintf("%q is not a URI reference: %v", id, err)}
		}
		abs := resolveURI(base, u)
		frag := abs.Fragment
		abs.Fragment, abs.RawFragment = "", ""
		if (u.Scheme != "" || u.Host != "" || u.Path != "" || u.Opaque != "") && abs.String() != base {
			base = abs.String()
			if at, dup := a.ix.resources[base]; dup && at != loc {
				// Real schemas repeat an id where nothing refers to it:
				// only a $ref that resolves through it is refused.
				a.ix.resources[base] = ambiguous
			} else {
				a.ix.resources[base] = loc
			}
		}
		if frag != "" && !strings.HasPrefix(frag, "/") && d < draft2019 {
			a.ix.anchors[base+"#"+frag] = loc // draft-06/07's plain-name anchor
		}
	}
	if name, ok := m["$anchor"].(string); ok && d >= draft2019 {
		a.ix.anchors[base+"#"+name] = loc
	}
	a.ix.base[loc] = base
	for k, v := range m {
		kw, ok := keywords[k]
		if !ok || kw.kind == valueData || !kw.defines(d) {
			continue
		}
		child := loc + "/" + jsonvalue.EscapePointer(k)
		switch v := v.(type) {
		case []any:
			if kw.kind == valueList || kw.kind == valueItems {
				for i, e := range v {
					if err := a.index(e, fmt.Sprintf("%s/%d", child, i), base, d, depth+1); err != nil {
						return err
					}
				}
			}
		case map[string]any:
			if kw.kind == valueMap {
				for name, e := range v {
					if err := a.index(e, child+"/"+jsonvalue.EscapePointer(name), base, d, depth+1); err != nil {
						return err
					}
				}
			} else if kw.kind == valueSchema || kw.kind == valueItems {
				if err := a.index(v, child, base, d, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func resolveURI(base string, u *url.URL) *url.URL {
	b, err := url.Parse(base)
	if err != nil {
		return u
	}
	if b.Opaque != "" && !u.IsAbs() {
		// A URN base: a relative reference replaces all but the scheme's
		// own part, as for a document with no path of its own.
		if u.Path == "" && u.Host == "" {
			r := *b
			r.Fragment, r.RawFragment = u.Fragment, u.RawFragment
			return &r
		}
		return &url.URL{Scheme: b.Scheme, Opaque: b.Opaque + "/" + strings.TrimPrefix(u.Path, "/"), Fragment: u.Fragment}
	}
	return b.ResolveReference(u)
}

// resolve returns the location in the document of the target of ref,
// the $ref at loc.
func (a *Auditor) resolve(loc, ref string) (string, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("%q is not a URI reference: %v", ref, err)
	}
	base, ok := a.ix.base[loc]
	if !ok {
		base = defaultBase
	}
	abs := resolveURI(base, u)
	frag := abs.Fragment
	abs.Fragment, abs.RawFragment = "", ""
	doc := abs.String()
	res, ok := a.ix.resources[doc]
	if !ok {
		return "", fmt.Errorf("%q refers to %s, outside this schema: only references within the schema are supported, so validation never reaches the network", ref, doc)
	}
	if res == ambiguous {
		return "", fmt.Errorf("%q refers to %s, which more than one subschema declares as its identifier", ref, doc)
	}
	var target string
	switch {
	case frag == "":
		target = res
	case strings.HasPrefix(frag, "/"):
		target = res + frag
	default:
		at, ok := a.ix.anchors[doc+"#"+frag]
		if !ok {
			return "", fmt.Errorf("%q names the anchor %q, which no subschema defines", ref, frag)
		}
		target = at
	}
	v, found := jsonvalue.LookupPointer(a.root, target)
	if !found {
		return "", fmt.Errorf("target %q not found in the schema", "#"+target)
	}
	if _, ok := v.(map[string]any); !ok {
		if _, ok := v.(bool); !ok {
			return "", fmt.Errorf("target %q is %s, not a schema", "#"+target, jsonvalue.Kind(v))
		}
	}
	return target, nil
}

// walkTarget audits the $ref target at loc, which no keyword put a
// subschema at, in the dialect and base of the objects around it, and
// puts its rewrite in its place in out.
func (a *Auditor) walkTarget(out any, loc string) (any, error) {
	d, base := a.draft, defaultBase
	if b, ok := a.ix.base[""]; ok {
		base = b
	}
	var v any = a.root
	toks := strings.Split(loc, "/")[1:]
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if m, ok := v.(map[string]any); ok {
			if i > 0 {
				if s, ok := m["$schema"].(string); ok {
					if nd, known := dialects[strings.TrimSuffix(s, "#")]; known {
						d = nd
					}
				}
				idKey := "$id"
				if d == Draft4 {
					idKey = "id"
				}
				if id, ok := m[idKey].(string); ok {
					if u, err := url.Parse(id); err == nil && u.Path+u.Host+u.Scheme+u.Opaque != "" {
						base = resolveURI(base, u).String()
					}
				}
			}
			if dataKeywords[tok] {
				return nil, &Error{Keyword: "$ref", Location: a.refFrom(loc), Reason: fmt.Sprintf("target %q lies in the value of %s, which is data, not a schema", "#"+loc, tok)}
			}
		}
		v, _ = jsonvalue.LookupPointer(v, "/"+jsonvalue.EscapePointer(tok))
	}
	outer := a.draft
	a.draft = d
	defer func() { a.draft = outer }()
	if !a.plain { // else there is nothing to record (see indexRoot)
		if err := a.index(v, loc, base, d, 0); err != nil {
			return nil, err
		}
	}
	r, err := a.walk(v, loc, "")
	if err != nil {
		return nil, err
	}
	return a.place(out, loc, r)
}

// refFrom is the location of the first $ref aimed at target.
func (a *Auditor) refFrom(target string) string {
	for _, from := range SortedKeys(a.refs) {
		if a.refs[from] == target {
			return from
		}
	}
	return ""
}

// place puts r in out at the place of loc in the rewrite, copying what
// out shares with the original document on the way, and making the
// objects the rewrite dropped (unknown keywords hold no schema for the
// validator) anew.
func (a *Auditor) place(out any, loc string, r any) (any, error) {
	aimed := a.aim(loc)
	if aimed == "" {
		return r, nil
	}
	toks := strings.Split(aimed[1:], "/")
	var orig any = a.root
	var set func(cur, orig any, i int) (any, error)
	set = func(cur, orig any, i int) (any, error) {
		if i == len(toks) {
			return r, nil
		}
		tok := strings.ReplaceAll(strings.ReplaceAll(toks[i], "~1", "/"), "~0", "~")
		origNext, _ := jsonvalue.LookupPointer(orig, "/"+jsonvalue.EscapePointer(tok))
		switch c := cur.(type) {
		case map[string]any:
			if sameContainer(c, orig) {
				c = shallowMap(c)
			}
			next, err := set(c[tok], origNext, i+1)
			if err != nil {
				return nil, err
			}
			c[tok] = next
			return c, nil
		case []any:
			var idx int
			if _, err := fmt.Sscan(tok, &idx); err != nil || idx < 0 || idx >= len(c) {
				break
			}
			if sameContainer(c, orig) {
				c = append([]any(nil), c...)
			}
			next, err := set(c[idx], origNext, i+1)
			if err != nil {
				return nil, err
			}
			c[idx] = next
			return c, nil
		case nil:
			next, err := set(nil, origNext, i+1)
			if err != nil {
				return nil, err
			}
			return map[string]any{tok: next}, nil
		}
		return nil, &Error{Keyword: "$ref", Location: a.refFrom(loc), Reason: fmt.Sprintf("target %q lies where the rewrite for gojsonschema holds no schema", "#"+loc)}
	}
	return set(out, orig, 0)
}

func shallowMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// sameContainer reports whether x and y are the same map or the same
// slice (not merely equal ones).
func sameContainer(x, y any) bool {
	vx, vy := reflect.ValueOf(x), reflect.ValueOf(y)
	if vx.Kind() != vy.Kind() || (vx.Kind() != reflect.Map && vx.Kind() != reflect.Slice) {
		return false
	}
	return vx.Pointer() == vy.Pointer() && vx.Len() == vy.Len()
}

// pointerRef is a $ref to the JSON Pointer ptr within the document.
func pointerRef(ptr string) string {
	if ptr == "" {
		return "#"
	}
	return (&url.URL{Fragment: ptr}).String()
}

// RefPointer reads a $ref of the rewrite, always "#" or "#/json/pointer",
// and returns the unescaped pointer.
func RefPointer(ref string) (string, error) {
	if !strings.HasPrefix(ref, "#") {
		return "", fmt.Errorf("%q is not a reference within this schema", ref)
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return "", fmt.Errorf("%q: %v", ref, err)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return "", fmt.Errorf("%q names an anchor", ref)
	}
	return frag, nil
}
