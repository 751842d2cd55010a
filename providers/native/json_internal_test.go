package native

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestAnObjectFindsItsMembersAsAScanWouldAtAnySize(t *testing.T) {
	// A model of what get, set and del mean, checked over random
	// operations on objects small enough to scan and large enough to be
	// indexed, duplicate keys included (decode never makes them; clone
	// and literals could).
	r := rand.New(rand.NewPCG(32, 2))
	for _, size := range []int{3, indexFrom, indexFrom + 1, 200} {
		o := &object{}
		var model []member
		scan := func(key string) int {
			for i, m := range model {
				if m.key == key {
					return i
				}
			}
			return -1
		}
		for op := range 20 * size {
			key := fmt.Sprint("k", r.IntN(size+size/2+1))
			switch r.IntN(4) {
			case 0:
				o.del(key)
				if i := scan(key); i >= 0 {
					model = append(model[:i], model[i+1:]...)
				}
			case 1:
				o.set(key, op)
				if i := scan(key); i >= 0 {
					model[i].val = op
				} else {
					model = append(model, member{key, op})
				}
			default:
				got, ok := o.get(key)
				if i := scan(key); (i >= 0) != ok || ok && got != model[i].val {
					t.Fatalf("size %d, op %d: get(%q) = %v, %v; a scan finds %v", size, op, key, got, ok, i)
				}
			}
			if len(o.members) != len(model) {
				t.Fatalf("size %d, op %d: %d members, the model has %d", size, op, len(o.members), len(model))
			}
		}
		c := clone(o).(*object)
		for _, m := range model {
			if got, _ := c.get(m.key); got != m.val {
				t.Fatalf("size %d: the clone's %q is %v, want %v", size, m.key, got, m.val)
			}
		}
	}
}
