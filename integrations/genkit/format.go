package genkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/firebase/genkit/go/ai"
	gk "github.com/firebase/genkit/go/genkit"

	"github.com/enforcer-go/enforcer/enforce"
)

// Format is the name of enforcer's output format: ask for it with
// ai.WithOutputFormat(Format) after ai.WithOutputType, once
// [DefineFormat] has registered it.
const Format = "enforcer"

// DefineFormat registers [Format] in g. Under it, the schema
// ai.WithOutputType (or ai.WithOutputSchema) gives is the contract the
// [Guard]'s middleware enforces, and Genkit's own check of the answer
// (its json format's schema validation) is not run: the Guard is the one
// judge. ModelResponse.Output decodes the answer the Guard passed.
func DefineFormat(g *gk.Genkit) {
	// Genkit looks formats up under "/format/"; its own DefineFormat does
	// not add the prefix in v1.4.0.
	gk.DefineFormat(g, "/format/"+Format, formatter{})
}

// contracts holds the contracts the format compiled, so the middleware,
// which sees the request and not the format, can find them: under
// "s:" and the schema's JSON when Genkit passes the schema on (a model
// with constrained output), under "i:" and the instructions the format
// wrote into the request when it does not. One entry per distinct
// schema, as enforce.SchemaFor caches one per type.
var contracts sync.Map // string → *enforce.Schema

type formatter struct{}

func (formatter) Name() string { return Format }

func (formatter) Handler(schema map[string]any) (ai.FormatHandler, error) {
	if schema == nil {
		return nil, fmt.Errorf("%w: the %q format needs a schema (ai.WithOutputType or ai.WithOutputSchema)", ErrNoContract, Format)
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	// A schema is compiled once and kept: every request under it, and the
	// Guard judging them, holds the same *enforce.Schema.
	var s *enforce.Schema
	if v, ok := contracts.Load("s:" + string(b)); ok {
		s = v.(*enforce.Schema)
	} else {
		c, err := enforce.CompileSchema(b)
		if err != nil {
			return nil, err
		}
		v, _ := contracts.LoadOrStore("s:"+string(b), c)
		s = v.(*enforce.Schema)
	}
	h := &handler{schema: s, instructions: instructions(b), config: ai.ModelOutputConfig{
		Format: Format, ContentType: "application/json", Constrained: true, Schema: schema,
	}}
	contracts.LoadOrStore("i:"+h.instructions, s)
	return h, nil
}

// instructions are what a model without constrained output is told.
func instructions(schema []byte) string {
	return "Reply with only a JSON value, no prose and no code fence, that conforms to this JSON Schema:\n\n" + string(schema)
}

// handler is the format for one request. Its ParseMessage leaves the
// message as the middleware passed it: the contract was judged there.
type handler struct {
	schema       *enforce.Schema
	instructions string
	config       ai.ModelOutputConfig

	index   int
	partial *enforce.Incremental
}

func (h *handler) Instructions() string                            { return h.instructions }
func (h *handler) Config() ai.ModelOutputConfig                    { return h.config }
func (h *handler) ParseMessage(m *ai.Message) (*ai.Message, error) { return m, nil }

// ParseOutput decodes the answer. It is strict: the middleware passed
// the answer as it stands, one JSON value.
func (h *handler) ParseOutput(m *ai.Message) (any, error) {
	if m == nil {
		return nil, errors.New("genkit: no message")
	}
	var v any
	if err := json.Unmarshal([]byte(m.Text()), &v); err != nil {
		return nil, err
	}
	return v, nil
}

// ParseChunk gives the value a streamed answer holds so far, as
// enforce.Incremental.Partial reads it; nil until a value begins. A new
// index (another message: a tool's, a corrective turn, the next answer)
// starts again.
func (h *handler) ParseChunk(c *ai.ModelResponseChunk) (any, error) {
	if h.partial == nil || c.Index != h.index {
		h.partial, h.index = h.schema.Stream(), c.Index
	}
	if c.Role != "" && c.Role != ai.RoleModel {
		return nil, nil
	}
	for _, p := range c.Content {
		if p.IsText() {
			h.partial.WriteString(p.Text) // a doomed answer reads as far as it went
		}
	}
	doc, _ := h.partial.Partial()
	if doc == nil {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, nil
	}
	return v, nil
}
