package native

import (
	"fmt"
	"strings"
)

// Mode says how a contract is sent to the provider.
type Mode string

const (
	// ModeStrict: the lowered schema is sent, and the provider constrains
	// its answer to it (OpenAI strict: true; the others' native schema).
	ModeStrict Mode = "strict"
	// ModeNonStrict: the lowered schema is sent as a hint the provider
	// does not enforce (OpenAI strict: false): the rules could not express
	// the contract.
	ModeNonStrict Mode = "non-strict"
	// ModeNone: no native schema is sent; the contract reaches the model
	// only in the system message. The rules could not express it, and the
	// provider has no non-strict mode.
	ModeNone Mode = "none"
)

// Report says what a lowering sends and what only enforcer judges.
type Report struct {
	Profile Profile
	Mode    Mode
	// Reason says why Mode is not [ModeStrict]; "" when it is.
	Reason string
	// Keywords are the contract's assertion keywords, by pointer (those
	// of one schema in its order).
	// Annotations (title, description, …) are not listed.
	Keywords []Keyword
	// Nullable are the pointers, into the contract, of the optional
	// members sent as required and nullable: a null the model writes for
	// one of them is read as the member left out ([ReadBack]).
	Nullable []string
}

// Keyword is one assertion keyword of the contract.
type Keyword struct {
	// Pointer is where the keyword's schema sits in the contract (with a
	// root "$ref" to a definition inlined, as it is sent); "" is the root.
	Pointer string
	Name    string
	// Enforced says the provider enforces it; false: it was left out, or
	// the mode enforces nothing, and only enforcer judges it.
	Enforced bool
	// Note says how it was sent when it was sent changed ("sent as
	// anyOf"), or why it was left out when that is not that the provider
	// lacks it.
	Note string
}

// Dropped counts the keywords only enforcer judges.
func (r Report) Dropped() int {
	n := 0
	for _, k := range r.Keywords {
		if !k.Enforced {
			n++
		}
	}
	return n
}

// Exact reports whether the provider enforces the whole contract: it is
// sent strict and no keyword is left out (a member sent nullable is read
// back exactly, and does not count against it). why says so in words,
// naming, when it is not, the reason or the first keywords left out.
func (r Report) Exact() (exact bool, why string) {
	switch n := r.Dropped(); {
	case r.Mode != ModeStrict:
		return false, fmt.Sprintf("%s: the contract is not sent strict (%s)", r.Profile, r.Reason)
	case n > 0:
		var left []string
		for _, k := range r.Keywords {
			if !k.Enforced && len(left) < 3 {
				at := k.Pointer
				if at == "" {
					at = "/"
				}
				left = append(left, k.Name+" at "+at)
			}
		}
		if n > len(left) {
			left = append(left, "…")
		}
		return false, fmt.Sprintf("%s: %d of %d keywords left out natively (%s)", r.Profile, n, len(r.Keywords), strings.Join(left, ", "))
	}
	return true, fmt.Sprintf("%s: every keyword of the contract enforced natively", r.Profile)
}
