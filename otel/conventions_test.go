package otel_test

import (
	"strings"
	"testing"

	"github.com/enforcer-go/enforcer/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// conventional is every key of the OpenTelemetry semantic conventions the
// spans may carry, as the last release with the GenAI registry
// (semconv v1.41.0; the GenAI conventions have since moved to a
// repository of their own) spells it, with its value type.
var conventional = map[attribute.Key]attribute.Type{
	semconv.GenAIOperationNameKey:              attribute.STRING,
	semconv.GenAIProviderNameKey:               attribute.STRING,
	semconv.GenAIRequestModelKey:               attribute.STRING,
	semconv.GenAIAgentNameKey:                  attribute.STRING,
	semconv.GenAIUsageInputTokensKey:           attribute.INT64,
	semconv.GenAIUsageOutputTokensKey:          attribute.INT64,
	semconv.GenAIUsageCacheReadInputTokensKey:  attribute.INT64,
	semconv.GenAIUsageReasoningOutputTokensKey: attribute.INT64,
	semconv.GenAIResponseFinishReasonsKey:      attribute.STRINGSLICE,
	semconv.GenAIOutputTypeKey:                 attribute.STRING,
	semconv.GenAIInputMessagesKey:              attribute.STRING, // JSON, as the conventions allow on spans
	semconv.GenAIOutputMessagesKey:             attribute.STRING,
	semconv.GenAIToolNameKey:                   attribute.STRING,
	semconv.GenAIToolCallIDKey:                 attribute.STRING,
	semconv.GenAIToolTypeKey:                   attribute.STRING,
	semconv.GenAIToolCallArgumentsKey:          attribute.STRING,
	semconv.GenAIToolCallResultKey:             attribute.STRING,
	semconv.ErrorTypeKey:                       attribute.STRING,
	semconv.HTTPResponseStatusCodeKey:          attribute.INT64,
	semconv.ExceptionTypeKey:                   attribute.STRING,
	semconv.ExceptionMessageKey:                attribute.STRING,
}

// TestSpansFollowTheGenAIConventions runs every kind of run of the leak
// test, with the text on so that the opt-in attributes show too, and
// checks each span and event against the conventions: every key outside
// the project's own enforcer.* namespace is one of theirs, spelled and
// typed as they say; each span has the name, kind and attributes they
// require of its operation; a failed span has error.type.
func TestSpansFollowTheGenAIConventions(t *testing.T) {
	var all tracetest.SpanStubs
	for _, c := range leakCases() {
		t.Run(c.name, func(t *testing.T) {
			tp, exp := traced(t)
			c.run(t, otel.Observer(otel.WithTracerProvider(tp), otel.WithModel("openai", "gpt-test"),
				otel.WithAgentName("weather"), otel.WithContent()))
			all = append(all, exp.GetSpans()...)
		})
	}
	seen := map[attribute.Key]bool{}
	check := func(where string, kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			seen[kv.Key] = true
			if strings.HasPrefix(string(kv.Key), "enforcer.") {
				continue
			}
			typ, ok := conventional[kv.Key]
			if !ok {
				t.Errorf("%s: %s is neither the conventions' nor enforcer.*", where, kv.Key)
			} else if kv.Value.Type() != typ {
				t.Errorf("%s: %s is a %v, want a %v", where, kv.Key, kv.Value.Type(), typ)
			}
		}
	}
	ops := map[string]bool{}
	for _, s := range all {
		check("span "+s.Name, s.Attributes)
		for _, e := range s.Events {
			check("event "+e.Name+" of "+s.Name, e.Attributes)
		}
		a := attrs(s)
		op := a[string(semconv.GenAIOperationNameKey)]
		ops[op] = true
		var wantName string
		var wantKind trace.SpanKind
		var required []attribute.Key
		switch op {
		case semconv.GenAIOperationNameInvokeAgent.Value.AsString():
			wantName, wantKind = op+" "+a[string(semconv.GenAIAgentNameKey)], trace.SpanKindInternal
			required = []attribute.Key{semconv.GenAIProviderNameKey, semconv.GenAIAgentNameKey, semconv.GenAIRequestModelKey}
		case semconv.GenAIOperationNameChat.Value.AsString():
			wantName, wantKind = op+" "+a[string(semconv.GenAIRequestModelKey)], trace.SpanKindClient
			required = []attribute.Key{semconv.GenAIProviderNameKey, semconv.GenAIRequestModelKey}
		case semconv.GenAIOperationNameExecuteTool.Value.AsString():
			wantName, wantKind = op+" "+a[string(semconv.GenAIToolNameKey)], trace.SpanKindInternal
			required = []attribute.Key{semconv.GenAIToolNameKey, semconv.GenAIToolCallIDKey, semconv.GenAIToolTypeKey}
		default:
			t.Errorf("span %q has gen_ai.operation.name %q", s.Name, op)
			continue
		}
		if s.Name != wantName || s.SpanKind != wantKind {
			t.Errorf("span %q of kind %v, want %q of kind %v", s.Name, s.SpanKind, wantName, wantKind)
		}
		for _, k := range required {
			if a[string(k)] == "" {
				t.Errorf("span %q lacks %s", s.Name, k)
			}
		}
		if s.Status.Code == codes.Error && a[string(semconv.ErrorTypeKey)] == "" {
			t.Errorf("failed span %q lacks error.type", s.Name)
		}
	}
	// The runs reach every operation and every conventional key, so none
	// of the checks above is vacuous.
	for _, op := range []string{"invoke_agent", "chat", "execute_tool"} {
		if !ops[op] {
			t.Errorf("no %s span", op)
		}
	}
	for k := range conventional {
		if !seen[k] {
			t.Errorf("no span or event has %s", k)
		}
	}
}
