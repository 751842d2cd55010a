package engine

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/enforcer-go/enforcer/enforce/internal/jsonvalue"
)

// stepKind is which part of an instance a subschema applies to.
type stepKind int

// step is a subschema applied to a part of the instance of the subschema
// holding it.
type step struct {
	kind  stepKind
	key   string
	index int
	to    string
}

// checkFanOut holds each value of an answer to MaxSchemaExpansion
// subschemas (see there why). Answers nest in endless ways, but only the
// steps stepsFrom lists lead to different subschemas, so a breadth-first
// walk over them that visits each distinct multiset of subschemas once,
// at the least depth it occurs, covers every answer. Where it cannot tell
// which subschemas a step leads to (any other member) it counts more,
// never fewer.
//
// A schema that checks the answer itself against more is refused: no
// answer could be judged. That is all the audit asks of it; the walk
// below the answer itself refuses nothing, and runs when an answer is
// first counted (reach, from Work).
func (a *Auditor) checkFanOut() error {
	f := newFanOut(a)
	start := f.closure(f.id(""))
	if start.total() > MaxSchemaExpansion {
		return &Error{Keyword: "$ref", Location: f.busiest(start), Reason: fmt.Sprintf("the schema checks an answer against more than MaxSchemaExpansion (%d) subschemas with its references followed: validating one answer could take minutes", MaxSchemaExpansion)}
	}
	a.fan, a.start = f, start
	return nil
}

// reach walks what checkFanOut accepted: PerValue, PerName, and fans
// where recursion fans out, or the walk passes fanOutWork, so that Check
// counts the checks of each answer along the answer itself: real answers
// are shallow where the worst case is deep.
func (a *Auditor) reach() {
	f, start := a.fan, a.start
	a.fan, a.start = nil, nil
	a.PerValue = start.total()
	seen := map[string]bool{start.key(): true}
	work := 0
	frontier := []visits{start}
	for depth := 1; depth <= jsonvalue.MaxDepth && len(frontier) > 0; depth++ {
		var next []visits
		for _, u := range frontier {
			scan := 0 // what one take from u reads besides its result
			for _, x := range u {
				scan += 1 + len(f.info(x.node).rest)
			}
			for _, s := range f.stepsFrom(u) {
				v := f.take(u, s, &f.sc)
				if work += scan + len(v); work > fanOutWork || v.total() > MaxSchemaExpansion {
					a.fans = true
					return
				}
				if s.kind == stepName {
					a.PerName = max(a.PerName, v.total())
					continue // a member's name is a string: nothing nests in it
				}
				a.PerValue = max(a.PerValue, v.total())
				if k := v.key(); len(v) > 0 && !seen[k] {
					seen[k] = true
					next = append(next, v)
				}
			}
		}
		frontier = next
	}
}

// FrozenFanOut is, for a schema whose recursion fans out, what counts an
// answer's checks ([FanOut.Within]): every subschema's steps and
// subschemas applied in place, computed now, so that answers may be
// counted concurrently. Closures are computed as answers ask for them,
// under a lock: computing every node's now would cost the square of a
// $ref chain's length.
func (a *Auditor) FrozenFanOut() *FanOut {
	if !a.fans {
		return nil
	}
	f := newFanOut(a)
	f.id("")
	for node := 0; node < len(f.locs); node++ { // info gives ids to what node reaches
		for _, st := range f.stepsOf(node) {
			if st.kind == stepPattern {
				f.matches(st.key, "")
			}
		}
	}
	f.a = nil // the audit's maps are not needed, nor kept alive
	f.mu = new(sync.Mutex)
	return f
}

// Within reports whether validating doc checks each of its values
// against at most MaxSchemaExpansion subschemas and all against at most
// limit, counting as the fan-out walk counts, along doc. f must be
// frozen.
func (f *FanOut) Within(doc any, limit int64) bool {
	var sc scratch
	var total int64
	var visit func(v any, vs visits) bool
	visit = func(v any, vs visits) bool {
		// Counts are capped just past MaxSchemaExpansion, the most one
		// value may be checked against.
		n := vs.total()
		if total += int64(n); n > MaxSchemaExpansion || total > limit {
			return false
		}
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if names := f.take(vs, step{kind: stepName}, &sc); len(names) > 0 {
					if total += int64(names.total()); total > limit {
						return false
					}
				}
				if c := f.take(vs, step{kind: stepMember, key: k}, &sc); len(c) > 0 && !visit(e, c) {
					return false
				}
			}
		case []any:
			for i, e := range v {
				if c := f.take(vs, step{kind: stepAt, index: i}, &sc); len(c) > 0 && !visit(e, c) {
					return false
				}
			}
		}
		return true
	}
	return visit(doc, f.closure(0))
}

// fanOutWork bounds the audit's own work in checkFanOut: the subschemas it
// counts over all the ways to nest that it follows. Past it, answers are
// counted one by one (see there).
const fanOutWork = MaxSchemaExpansion / 4

// visits is a multiset of subschemas, by id, sorted: those checked against
// one value of an answer, each as many times as the schema reaches it.
type visits []visit

type visit struct {
	node int
	n    int
}

// fanOutCap stands for any count past MaxSchemaExpansion, so that counts
// never overflow.
const fanOutCap = MaxSchemaExpansion + 1

func (v visits) total() int {
	t := 0
	for _, x := range v {
		t = min(t+x.n, fanOutCap)
	}
	return t
}

// capped is a*b, or fanOutCap when that is more.
func capped(a, b int) int {
	if a != 0 && b > fanOutCap/a {
		return fanOutCap
	}
	return min(a*b, fanOutCap)
}

func (v visits) key() string {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.AppendUvarint(b, uint64(x.node))
		b = binary.AppendUvarint(b, uint64(x.n))
	}
	return string(b)
}

func visitsOf(m map[int]int) visits {
	v := make(visits, 0, len(m))
	for node, n := range m {
		v = append(v, visit{node, n})
	}
	slices.SortFunc(v, func(x, y visit) int { return x.node - y.node })
	return v
}

// FanOut holds what checkFanOut computes once: ids for locations, the
// subschemas each applies to its own instance, compiled patterns.
type FanOut struct {
	a        *Auditor
	ids      map[string]int
	locs     []string
	closures []visits // by node; nil until computed
	patterns map[string]*regexp.Regexp
	// nodeSteps are each node's steps, their targets as ids.
	nodeSteps []*nodeInfo // by node; nil until computed
	slab      []nodeInfo  // where info puts them; never grown in place
	ones      visits      // where paths puts a closure of one node; likewise
	sc        scratch     // take's, in the audit
	names     []string    // stepsFrom's, in the audit
	stepBuf   []step      // stepsFrom's result, read before it is called again
	csc       pathScratch // paths'
	kept      int         // visits in closures
	spent     int         // the work of paths, for the audit's bound
	mu        *sync.Mutex // frozen: guards closures and csc
}

// pathScratch is paths' working space: a mark, then a count, by node,
// zero where untouched; the nodes reached; the walk's stack.
type pathScratch struct {
	mark, order []int
	stack       []frame
}

// frame is a node on paths' walk and the next of its edges to follow.
type frame struct{ node, i int }

// scratch is take's working space: counts by node, zero where untouched,
// and the nodes touched.
type scratch struct{ acc, touched []int }

// nodeStep is a step whose target is a node id.
type nodeStep struct {
	step
	node int
}

// stepsOf is the steps of the subschema node.
func (f *FanOut) stepsOf(node int) []nodeStep { return f.info(node).all }

// nodeInfo is a node's steps, its targets as ids: all of them, and
// split into those by member name and the rest, so that a step into one
// member costs what the node has besides its properties.
type nodeInfo struct {
	all     []nodeStep
	members []nodeStep // the stepMember steps, by key (stable)
	rest    []nodeStep
	edges   []int // the subschemas the node applies in place, as ids
}

// named is the steps into the member key.
func (in *nodeInfo) named(key string) []nodeStep {
	i, _ := slices.BinarySearchFunc(in.members, key, func(s nodeStep, k string) int { return strings.Compare(s.key, k) })
	j := i
	for j < len(in.members) && in.members[j].key == key {
		j++
	}
	return in.members[i:j]
}

func (f *FanOut) info(node int) *nodeInfo {
	if node < len(f.nodeSteps) && f.nodeSteps[node] != nil {
		return f.nodeSteps[node]
	}
	steps := f.a.steps[f.locs[node]]
	// One array holds all, then members and rest, which split it.
	buf := make([]nodeStep, 2*len(steps))
	if len(f.slab) == cap(f.slab) {
		// Infos in blocks, each twice the last up to 64: one allocation
		// for many nodes, and little unused where few are asked for.
		f.slab = make([]nodeInfo, 0, min(2*cap(f.slab)+2, 64))
	}
	f.slab = append(f.slab, nodeInfo{all: buf[:len(steps):len(steps)]})
	in := &f.slab[len(f.slab)-1]
	if es := f.a.edges[f.locs[node]]; len(es) > 0 {
		in.edges = make([]int, len(es))
		for i, e := range es {
			in.edges[i] = f.id(e)
		}
	}
	members, rest := buf[len(steps):len(steps)], buf[len(steps):]
	for i, st := range steps {
		ns := nodeStep{st, f.id(st.to)}
		in.all[i] = ns
		if st.kind == stepMember {
			members = append(members, ns)
		}
	}
	rest = rest[len(members):len(members)]
	for _, ns := range in.all {
		if ns.kind != stepMember {
			rest = append(rest, ns)
		}
	}
	slices.SortStableFunc(members, func(x, y nodeStep) int { return strings.Compare(x.key, y.key) })
	in.members = members[:len(members):len(members)]
	if len(rest) > 0 {
		in.rest = rest
	}
	for node >= len(f.nodeSteps) {
		f.nodeSteps = append(f.nodeSteps, nil)
	}
	f.nodeSteps[node] = in
	return in
}

func newFanOut(a *Auditor) *FanOut {
	return &FanOut{a: a, ids: map[string]int{}}
}

func (f *FanOut) id(loc string) int {
	if i, ok := f.ids[loc]; ok {
		return i
	}
	f.ids[loc] = len(f.locs)
	f.locs = append(f.locs, loc)
	return len(f.locs) - 1
}

// closure is what gojsonschema checks a value against when it checks it
// against node: node itself and, with multiplicity, every subschema node
// applies to the same value ($ref target, allOf, anyOf, …). findCycle
// has refused a loop among these, so the count of each is the number of
// paths to it, summed in one pass over what node reaches in topological
// order: linear in that part of the schema. Only closures asked for are
// kept, and only up to maxKept visits in all; a $ref chain of n links
// asked for at its head costs n, not the n²/2 of keeping every link's.
func (f *FanOut) closure(node int) visits {
	if f.mu != nil {
		f.mu.Lock()
		defer f.mu.Unlock()
	}
	if node < len(f.closures) && f.closures[node] != nil {
		return f.closures[node]
	}
	v := f.paths(node)
	if f.kept+len(v) <= maxKept {
		f.kept += len(v)
		for node >= len(f.closures) {
			f.closures = append(f.closures, nil)
		}
		f.closures[node] = v
	}
	return v
}

// maxKept bounds the visits closure keeps (16 bytes each): past it, a
// closure is computed again each time it is asked for, so that a schema
// whose many subschemas each reach a long chain costs time the callers
// bound (take stops past fanOutCap) rather than memory nothing bounds.
const maxKept = 1 << 20

// paths is closure's count: node's visits, the number of paths by edges
// from node to each node it reaches. Its work goes to f.spent.
func (f *FanOut) paths(node int) visits {
	if len(f.info(node).edges) == 0 {
		// node alone, as the walk below would find it, without its
		// space, in a block of such visits (none is written once made).
		f.spent++
		if len(f.ones) == cap(f.ones) {
			f.ones = make(visits, 0, min(2*cap(f.ones)+2, 64))
		}
		f.ones = append(f.ones, visit{node, 1})
		return f.ones[len(f.ones)-1 : len(f.ones) : len(f.ones)]
	}
	cs := &f.csc
	for node >= len(cs.mark) {
		cs.mark = append(cs.mark, make([]int, len(f.locs)+1-len(cs.mark))...)
	}
	// A depth-first walk, without recursion (a chain may be as long as the
	// schema), lists the nodes reached in postorder; reversed, each comes
	// before every node its edges lead to.
	order := cs.order[:0]
	stack := append(cs.stack[:0], frame{node, 0})
	cs.mark[node] = 1
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		es := f.info(top.node).edges
		if top.i == len(es) {
			order = append(order, top.node)
			stack = stack[:len(stack)-1]
			continue
		}
		w := es[top.i]
		top.i++
		f.spent++
		for w >= len(cs.mark) {
			cs.mark = append(cs.mark, make([]int, len(f.locs)+1-len(cs.mark))...)
		}
		if cs.mark[w] == 0 {
			cs.mark[w] = 1
			stack = append(stack, frame{w, 0})
		}
	}
	// mark now holds counts: 1 for node, and each edge adds its source's.
	for _, u := range order {
		cs.mark[u] = 0
	}
	cs.mark[node] = 1
	for i := len(order) - 1; i >= 0; i-- {
		u := order[i]
		for _, w := range f.info(u).edges {
			cs.mark[w] = min(cs.mark[w]+cs.mark[u], fanOutCap)
		}
	}
	v := make(visits, len(order))
	for i, u := range order {
		v[i] = visit{u, cs.mark[u]}
		cs.mark[u] = 0
	}
	slices.SortFunc(v, func(x, y visit) int { return x.node - y.node })
	f.spent += len(v)
	cs.order, cs.stack = order, stack
	return v
}

// stepsFrom lists the steps into a value that lead from the subschemas
// in v to different subschemas: each member name their properties list,
// any other member, each tuple position, any later item, a member's name.
// The list is f's, valid until the next call.
func (f *FanOut) stepsFrom(v visits) []step {
	names := f.names[:0]
	other, items, name := false, false, false
	tuple := 0
	for _, x := range v {
		for _, s := range f.stepsOf(x.node) {
			switch s.kind {
			case stepMember:
				names = append(names, s.key)
			case stepPattern, stepOther:
				other = true
			case stepAt:
				tuple = max(tuple, s.index+1)
				items = true
			case stepRest, stepEvery:
				items = true
			case stepName:
				name = true
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	f.names = names
	out := f.stepBuf[:0]
	for _, n := range names {
		out = append(out, step{kind: stepMember, key: n})
	}
	if other {
		out = append(out, step{kind: stepOther})
	}
	if items {
		for i := 0; i <= tuple; i++ { // tuple stands for every later item
			out = append(out, step{kind: stepAt, index: i})
		}
	}
	if name {
		out = append(out, step{kind: stepName})
	}
	f.stepBuf = out
	return out
}

// take returns the subschemas checked against the part of a value that s
// steps into, when the value is checked against those in v.
func (f *FanOut) take(v visits, s step, sc *scratch) visits {
	// The counts gather in sc.acc, by node, zero where untouched: the walk
	// takes millions of steps, where a map per take would be most of its
	// time.
	//
	// Once the counts pass fanOutCap in all, the rest cannot change what
	// a caller reads (a total past MaxSchemaExpansion) and are not added:
	// a value checked against each of n links of a chain, each leading
	// into the chain again, would otherwise cost n² here.
	touched := sc.touched[:0]
	sum := 0
	add := func(c visits, times int) {
		for _, x := range c {
			if sum >= fanOutCap {
				return
			}
			if x.node >= len(sc.acc) {
				sc.acc = append(sc.acc, make([]int, x.node+1-len(sc.acc)+len(sc.acc))...)
			}
			if sc.acc[x.node] == 0 {
				touched = append(touched, x.node)
			}
			n := capped(x.n, times)
			sc.acc[x.node] = min(sc.acc[x.node]+n, fanOutCap)
			sum = min(sum+n, fanOutCap)
		}
	}
	for _, x := range v {
		if sum >= fanOutCap {
			break
		}
		in := f.info(x.node)
		steps := in.rest
		switch s.kind {
		case stepMember:
			named := in.named(s.key)
			for _, t := range named {
				add(f.closure(t.node), x.n)
			}
			matched := false
			for _, t := range steps {
				if t.kind == stepPattern && f.matches(t.key, s.key) {
					matched = true
					add(f.closure(t.node), x.n)
				}
			}
			for _, t := range steps {
				if t.kind == stepOther && len(named) == 0 && !matched {
					add(f.closure(t.node), x.n)
				}
			}
		case stepOther:
			// A member no properties name: it may match any of the
			// patterns, or none and meet additionalProperties.
			pm, om := map[int]int{}, map[int]int{}
			for _, t := range steps {
				into := pm
				if t.kind == stepOther {
					into = om
				} else if t.kind != stepPattern {
					continue
				}
				for _, c := range f.closure(t.node) {
					into[c.node] = min(into[c.node]+c.n, fanOutCap)
				}
			}
			for node, n := range om {
				pm[node] = max(pm[node], n)
			}
			add(visitsOf(pm), x.n)
		case stepAt:
			tuple := 0
			for _, t := range steps {
				if t.kind == stepAt {
					tuple = max(tuple, t.index+1)
				}
			}
			for _, t := range steps {
				if t.kind == stepEvery || t.kind == stepAt && t.index == s.index || t.kind == stepRest && s.index >= tuple {
					add(f.closure(t.node), x.n)
				}
			}
		case stepName:
			for _, t := range steps {
				if t.kind == stepName {
					add(f.closure(t.node), x.n)
				}
			}
		}
	}
	slices.Sort(touched)
	out := make(visits, len(touched))
	for i, node := range touched {
		out[i] = visit{node, sc.acc[node]}
		sc.acc[node] = 0
	}
	sc.touched = touched
	return out
}

// matches reports whether pattern matches name as gojsonschema matches
// it; a pattern that does not compile is taken to match.
func (f *FanOut) matches(pattern, name string) bool {
	re, ok := f.patterns[pattern]
	if !ok {
		re, _ = regexp.Compile(pattern)
		if f.patterns == nil {
			f.patterns = map[string]*regexp.Regexp{}
		}
		f.patterns[pattern] = re
	}
	return re == nil || re.MatchString(name)
}

// busiest names the subschema v checks a value against most often,
// preferring a $ref: where the fan-out shows.
func (f *FanOut) busiest(v visits) string {
	best, bestN := "", -1
	for _, x := range v {
		loc := f.locs[x.node]
		n := x.n * 2
		if _, isRef := f.a.refs[loc]; isRef {
			n++
		}
		if n > bestN || n == bestN && loc < best {
			best, bestN = loc, n
		}
	}
	return best
}

// token writes the step as a JSON Pointer token of the answer.
func (s step) token() string {
	switch s.kind {
	case stepMember:
		return "/" + jsonvalue.EscapePointer(s.key)
	case stepOther:
		return "/<any member>"
	case stepAt:
		return "/" + strconv.Itoa(s.index)
	}
	return " (a member's name)"
}

// A Work is what holds an answer to a count of subschema checks: the
// most subschemas the audit found one value, and one member's name,
// checked against, or, where recursion fans out (Fan not nil), what
// counts them along the answer itself.
type Work struct {
	PerValue, PerName int
	Fan               *FanOut
}

// Work is the audited schema's [Work], walked now (reach): call it
// once, after Audit.
func (a *Auditor) Work() Work {
	a.reach()
	return Work{PerValue: a.PerValue, PerName: a.PerName, Fan: a.FrozenFanOut()}
}

// Refusal says why doc, parsed with values values and names member
// names, would take more than limit subschema checks; "" when it would
// not.
func (w Work) Refusal(doc any, values, names int, limit int64) string {
	if w.Fan != nil {
		if w.Fan.Within(doc, limit) {
			return ""
		}
		return fmt.Sprintf("the answer is too costly for this contract: its recursion checks some values once for every branch that reaches them, and the answer's %d values would take more than MaxSchemaExpansion (%d) subschema checks for one value or MaxCheckWork (%d) in all: it was not judged further", values, MaxSchemaExpansion, limit)
	}
	if int64(values)*int64(w.PerValue)+int64(names)*int64(w.PerName) <= limit { // answers are bounded in bytes, so this cannot overflow
		return ""
	}
	return fmt.Sprintf("the answer is too large for this contract: its %d values and %d member names, each checked against up to %d and %d subschemas, would take more than MaxCheckWork (%d) subschema checks: it was not judged further", values, names, w.PerValue, w.PerName, limit)
}
