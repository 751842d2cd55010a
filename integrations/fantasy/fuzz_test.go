package fantasy_test

import (
	"context"
	"encoding/json"
	"testing"

	charm "charm.land/fantasy"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/fantasy"
)

// partsModel is a fantasy model whose one stream is parts.
type partsModel struct {
	scripted
	parts []charm.StreamPart
}

func (m *partsModel) Stream(context.Context, charm.Call) (charm.StreamResponse, error) {
	return func(yield func(charm.StreamPart) bool) {
		for _, p := range m.parts {
			if !yield(p) {
				return
			}
		}
	}, nil
}

var partTypes = []charm.StreamPartType{charm.StreamPartTypeTextDelta, charm.StreamPartTypeToolInputStart, charm.StreamPartTypeToolInputDelta,
	charm.StreamPartTypeToolInputEnd, charm.StreamPartTypeToolCall, charm.StreamPartTypeReasoningDelta, charm.StreamPartTypeFinish, charm.StreamPartTypeTextStart}

// FuzzStream reads any sequence of fantasy stream parts (a JSON array
// of [type, id, name, text] entries, the type an index into partTypes):
// every chunk the glue yields is one the agent's reply builder takes,
// one call is made of each call ID, and each has arguments ("{}" at
// least, as Generate gives them).
func FuzzStream(f *testing.F) {
	for _, s := range []string{
		`[[0,"t","","{\"a\":"],[0,"t","","1}"],[6,"","stop",""]]`,
		`[[1,"c1","lookup",""],[2,"c1","","{\"city\":"],[2,"c1","","\"Paris\"}"],[3,"c1","",""],[4,"c1","lookup","{\"city\":\"Paris\"}"]]`,
		`[[4,"c1","lookup",""],[4,"c1","lookup","{}"]]`,
		`[[2,"x","","{"],[1,"x","late",""]]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		var entries [][4]json.RawMessage
		if json.Unmarshal([]byte(script), &entries) != nil || len(entries) > 64 {
			return
		}
		var parts []charm.StreamPart
		for _, e := range entries {
			var typ int
			var id, name, text string
			if json.Unmarshal(e[0], &typ) != nil || typ < 0 || typ >= len(partTypes) {
				return
			}
			json.Unmarshal(e[1], &id)
			json.Unmarshal(e[2], &name)
			json.Unmarshal(e[3], &text)
			parts = append(parts, charm.StreamPart{Type: partTypes[typ], ID: id, ToolCallName: name, Delta: text, ToolCallInput: text, FinishReason: charm.FinishReason(name)})
		}
		var b agent.ReplyBuilder
		for c, err := range fantasy.NewModel(&partsModel{parts: parts}, charm.Call{}).GenerateStream(t.Context(), agent.Request{}) {
			if err != nil {
				t.Fatalf("a stream without an error part failed: %v", err)
			}
			if err := b.Add(c); err != nil {
				t.Fatalf("the reply builder refused chunk %+v: %v", c, err)
			}
		}
		ids := map[string]bool{}
		for _, p := range parts {
			switch {
			case p.Type == charm.StreamPartTypeToolInputStart, p.Type == charm.StreamPartTypeToolCall,
				p.Type == charm.StreamPartTypeToolInputDelta && p.Delta != "":
				ids[p.ID] = true
			}
		}
		calls := b.Response().Message.ToolCalls
		if len(calls) != len(ids) {
			t.Errorf("%d calls for %d call IDs", len(calls), len(ids))
		}
		for _, c := range calls {
			if len(c.Arguments) == 0 {
				t.Errorf("call %s has no arguments; want at least {}", c.ID)
			}
		}
	})
}
