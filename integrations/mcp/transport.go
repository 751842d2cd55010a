package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport wraps t so that the tools [Tools] makes of a session
// connected through it judge and show each result's structuredContent as
// the bytes the server sent. The SDK decodes a result into Go values
// first, numbers as float64 and objects as maps: without Transport a
// member written twice is seen once (the last), and an integer past 2^53
// as the float64 nearest it, so {"id": 9007199254740993} would pass
// "maximum": 9007199254740992 and be shown as 9007199254740992. Through
// it, a duplicate key fails the output schema and numbers are judged and
// shown exactly, as enforce judges an answer.
//
// A *mcp.StreamableClientTransport is returned as it is: its connection
// takes the session's state through a method the SDK does not export,
// which a wrapper would hide, so its results are judged as the SDK
// decoded them.
func Transport(t mcp.Transport) mcp.Transport {
	if _, ok := t.(*mcp.StreamableClientTransport); ok || t == nil {
		return t
	}
	return exactTransport{t}
}

type exactTransport struct{ t mcp.Transport }

func (e exactTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := e.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &exactConn{Connection: c, calls: make(map[jsonrpc.ID]*rawResult)}, nil
}

// exactConn keeps, for each tools/call a tool's Run makes (its context
// holds a *rawResult), the result bytes of the response to it.
type exactConn struct {
	mcp.Connection
	mu    sync.Mutex
	calls map[jsonrpc.ID]*rawResult // calls written and not yet answered
}

func (c *exactConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	slot, _ := ctx.Value(rawKey{}).(*rawResult)
	if !ok || slot == nil || req.Method != "tools/call" || !req.IsCall() {
		return c.Connection.Write(ctx, msg)
	}
	// Registered before the write: the answer may be read before Write
	// returns.
	c.mu.Lock()
	c.calls[req.ID] = slot
	c.mu.Unlock()
	slot.mu.Lock()
	slot.conn, slot.id = c, req.ID
	slot.mu.Unlock()
	err := c.Connection.Write(ctx, msg)
	if err != nil {
		c.forget(req.ID)
	}
	return err
}

func (c *exactConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.mu.Lock()
		slot := c.calls[resp.ID]
		delete(c.calls, resp.ID)
		c.mu.Unlock()
		if slot != nil {
			slot.mu.Lock()
			slot.data, slot.read = resp.Result, true
			slot.mu.Unlock()
		}
	}
	return msg, err
}

func (c *exactConn) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
}

// rawKey is the context key of a tool call's *rawResult.
type rawKey struct{}

// rawResult receives the bytes of one tools/call result, when the
// session's transport is an exact one ([Transport]).
type rawResult struct {
	mu   sync.Mutex
	conn *exactConn // set once the call is written through one
	id   jsonrpc.ID
	read bool
	data json.RawMessage // the result object as the server sent it
}

// done ends the call: a call cancelled before its answer is forgotten,
// so the connection keeps nothing of it.
func (r *rawResult) done() {
	r.mu.Lock()
	conn, id := r.conn, r.id
	r.mu.Unlock()
	if conn != nil {
		conn.forget(id)
	}
}

// errDuplicateStructured is a result whose object names structuredContent
// twice, which the SDK reads as the last.
var errDuplicateStructured = errors.New("the result names structuredContent more than once")

// structured returns the structuredContent of the result as the server
// sent it, compacted (numbers and strings keep their bytes); nil when the
// bytes were not kept (no exact transport) or the result has none.
func (r *rawResult) structured() (json.RawMessage, error) {
	r.mu.Lock()
	data, read := r.data, r.read
	r.mu.Unlock()
	if !read {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil // the SDK refused it already, or will
	}
	var found json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil
		}
		if tok != "structuredContent" {
			continue
		}
		if found != nil {
			return nil, errDuplicateStructured
		}
		found = v
	}
	if found == nil || string(found) == "null" {
		return nil, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, found); err != nil {
		return nil, nil
	}
	return b.Bytes(), nil
}
