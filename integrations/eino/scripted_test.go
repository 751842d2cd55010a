package eino_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// scripted is an eino model.ToolCallingChatModel that answers from a
// script. eino ships no scripted model outside its internal packages (its
// mocks are gomock's, under internal/mock), so this is the smallest
// implementation of its interface: each call takes the next reply, and
// Stream sends the reply's chunks through eino's own schema.Pipe, one
// Send at a time, so a test sees when the reader closes.
type scripted struct {
	mu      sync.Mutex
	replies [][]*schema.Message // each reply: its chunks (Generate concatenates them)
	inputs  [][]*schema.Message
	tools   [][]*schema.ToolInfo // the tools bound for each call
	opts    []*model.Options
	bound   []*schema.ToolInfo
	parent  *scripted
	// onChunk, when set, is called after each chunk Stream sent, with
	// its index.
	onChunk func(i int)
	// streams holds what became of each stream's writer.
	streams []*streamEnd
}

// streamEnd says why a stream's writer stopped.
type streamEnd struct {
	done      chan struct{}
	closed    bool // a Send found the reader closed
	cancelled bool // the call's ctx ended
	sent      int  // chunks the reader took
}

func newScripted(replies ...[]*schema.Message) *scripted { return &scripted{replies: replies} }

func text(s string) []*schema.Message { return []*schema.Message{schema.AssistantMessage(s, nil)} }

func (m *scripted) root() *scripted {
	if m.parent != nil {
		return m.parent
	}
	return m
}

func (m *scripted) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &scripted{parent: m.root(), bound: tools}, nil
}

func (m *scripted) next(input []*schema.Message, opts []model.Option) ([]*schema.Message, error) {
	r := m.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inputs = append(r.inputs, input)
	r.tools = append(r.tools, m.bound)
	r.opts = append(r.opts, model.GetCommonOptions(&model.Options{}, opts...))
	if len(r.replies) == 0 {
		return nil, fmt.Errorf("scripted: no reply left for call %d", len(r.inputs))
	}
	reply := r.replies[0]
	r.replies = r.replies[1:]
	return reply, nil
}

func (m *scripted) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	reply, err := m.next(input, opts)
	if err != nil {
		return nil, err
	}
	return schema.ConcatMessages(reply)
}

func (m *scripted) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	reply, err := m.next(input, opts)
	if err != nil {
		return nil, err
	}
	r := m.root()
	end := &streamEnd{done: make(chan struct{})}
	r.mu.Lock()
	r.streams = append(r.streams, end)
	onChunk := r.onChunk
	r.mu.Unlock()
	sr, sw := schema.Pipe[*schema.Message](0)
	go func() {
		defer close(end.done)
		defer sw.Close()
		for i, c := range reply {
			if ctx.Err() != nil {
				end.cancelled = true
				return
			}
			if sw.Send(c, nil) {
				end.closed = true
				return
			}
			end.sent++
			if onChunk != nil {
				onChunk(i)
			}
		}
	}()
	return sr, nil
}

func (m *scripted) calls() int {
	r := m.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.inputs)
}
