// Package reflected is the machinery of enforce.SchemaFor: the JSON
// Schema document invopop/jsonschema reflects from a Go type, and a
// [Cache] that builds one value per type, once. It knows nothing of
// compiled schemas: enforce compiles the document and caches the result.
package reflected

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/invopop/jsonschema"
)

// An Error is why no document could be reflected from a type: Reason
// says so in words a user reads; Err, when set, is the encoder's error.
type Error struct {
	Reason string
	Err    error
}

// Error returns the reason.
func (e *Error) Error() string { return e.Reason }

// Schema returns the document invopop/jsonschema's default Reflector
// reflects from t (every field without omitempty required, unknown
// members refused), with no $schema, or an *[Error] when the reflector
// panics or the document does not encode.
func Schema(t reflect.Type) (raw []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, &Error{Reason: fmt.Sprintf("cannot reflect a schema from %v: %v", t, r)}
		}
	}()
	js := (&jsonschema.Reflector{}).ReflectFromType(t)
	// Reflected schemas name 2020-12 but use only keywords that mean the
	// same in draft-07, where format is asserted — which we want: an
	// answer that does not decode into T must fail.
	js.Version = ""
	raw, err = json.Marshal(js)
	if err != nil {
		return nil, &Error{Reason: fmt.Sprintf("cannot encode the schema reflected from %v", t), Err: err}
	}
	return raw, nil
}

// A Cache holds one V, or the error building it gave, per type. Its zero
// value is ready; it is safe for concurrent use.
type Cache[V any] struct{ m sync.Map } // reflect.Type → *entry[V]

type entry[V any] struct {
	v   V
	err error
}

// Get returns what build gave for t, calling it on t's first Get; a
// later Get returns the same, without allocating. Concurrent first Gets
// may each build, and all return the one stored first.
func (c *Cache[V]) Get(t reflect.Type, build func(reflect.Type) (V, error)) (V, error) {
	if e, ok := c.m.Load(t); ok {
		e := e.(*entry[V])
		return e.v, e.err
	}
	e := &entry[V]{}
	e.v, e.err = build(t)
	actual, _ := c.m.LoadOrStore(t, e)
	e = actual.(*entry[V])
	return e.v, e.err
}
