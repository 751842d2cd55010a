package agent_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/enforcer-go/enforcer/agent"
)

// FuzzResultJSON reads any bytes as a saved Result, as agenttest.Replay
// does: what reads back once must write and read back the same.
func FuzzResultJSON(f *testing.F) {
	b, _ := json.Marshal(fullResult())
	f.Add(b)
	f.Add([]byte(`{"messages":[{"role":"assistant","toolCalls":[{"id":"c","name":"n","argumentsText":"{\"a\":"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","toolCalls":[{"id":"c","name":"n","arguments":{"a": [1, 2]}}]}],"attempts":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var first agent.Result
		if json.Unmarshal(data, &first) != nil {
			return
		}
		b, err := json.Marshal(&first)
		if err != nil {
			t.Fatalf("a Result read from %q does not write: %v", data, err)
		}
		var second agent.Result
		if err := json.Unmarshal(b, &second); err != nil {
			t.Fatalf("%s does not read back: %v", b, err)
		}
		if !reflect.DeepEqual(&first, &second) {
			t.Fatalf("round trip of %q:\n got %+v\nwant %+v", data, second, first)
		}
	})
}
