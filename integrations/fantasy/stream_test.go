package fantasy_test

import (
	"context"
	"errors"
	"testing"

	charm "charm.land/fantasy"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/integrations/fantasy"
)

// ctxModel is a fantasy model that keeps the ctx of its stream, which
// sends text until the consumer stops.
type ctxModel struct {
	scripted
	ctx context.Context
}

func (m *ctxModel) Stream(ctx context.Context, _ charm.Call) (charm.StreamResponse, error) {
	m.ctx = ctx
	return func(yield func(charm.StreamPart) bool) {
		for yield(charm.StreamPart{Type: charm.StreamPartTypeTextDelta, Delta: "a"}) {
		}
	}, nil
}

// fantasy's streams have no Close: a consumer that stops early ends the
// provider's request through the call's ctx, its own ctx still alive.
func TestAStreamLeftEarlyEndsTheFantasyCall(t *testing.T) {
	m := &ctxModel{}
	for range fantasy.NewModel(m, charm.Call{}).GenerateStream(t.Context(), agent.Request{}) {
		break
	}
	if m.ctx == nil || !errors.Is(m.ctx.Err(), context.Canceled) {
		t.Errorf("the fantasy call's ctx after the consumer left: %v, want it cancelled", m.ctx)
	}
}
