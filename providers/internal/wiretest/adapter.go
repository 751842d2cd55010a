package wiretest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/enforcer-go/enforcer/agent"
)

// Adapter is a provider adapter under test, as the scenarios of this
// package drive it: each scenario checks one behaviour every adapter
// documents alike, and takes what differs between the providers — the
// replies in the provider's wire format, the errors it sends — from its
// caller, which keeps each provider's own rules in its own tests.
type Adapter struct {
	// System is the adapter's System, as its ProviderErrors and the
	// events it causes name it.
	System string
	// Streams is the provider's stream format: a whole reply body sent as
	// the provider streams it (see [Server.StreamsWith]). The scenarios'
	// servers stream a reply scripted whole this way.
	Streams func(body string) []string
	// New returns the adapter under test over a client of the server at
	// c.URL, configured as a user would, and as c asks.
	New func(t *testing.T, c Client) agent.StreamingModel
	// Read reads a request body the adapter sent into the terms of
	// [Sent]. It fails t on a body that is not the provider's request, or
	// has a shape the adapter does not send.
	Read func(t *testing.T, body []byte) Sent
	// NamesResults says that a tool result on the wire names the tool
	// it answers (Gemini's functionResponse does).
	NamesResults bool
	// LinesAlone says that the adapter's SDK decodes each data line of
	// a stream alone (go-openai), where the server-sent event format joins
	// an event's lines: an event of endless data lines fails at its first
	// line, as malformed, before it reaches a bound.
	LinesAlone bool
}

// Client is how a scenario asks for the adapter's client to be set up.
type Client struct {
	// URL is the server's base URL.
	URL string
	// Retries, when set, asks the client's SDK to retry a failed request
	// three times: the adapter must still send each request once.
	Retries bool
	// Timeout, when set, bounds each request's time.
	Timeout time.Duration
}

// Server starts a server that answers with script in order, a reply
// scripted whole streamed in the provider's format when the request asks
// for a stream.
func (a Adapter) Server(t testing.TB, script ...Reply) *Server {
	t.Helper()
	s := NewServer(t, script...)
	s.StreamsWith(a.Streams)
	return s
}

// Model is the adapter under test over a client of srv.
func (a Adapter) Model(t *testing.T, srv *Server) agent.StreamingModel {
	t.Helper()
	return a.New(t, Client{URL: srv.URL})
}

// Retrying is the adapter over a client of srv whose SDK is asked to
// retry.
func (a Adapter) Retrying(t *testing.T, srv *Server) agent.StreamingModel {
	t.Helper()
	return a.New(t, Client{URL: srv.URL, Retries: true})
}

// Sent reads request i that srv received.
func (a Adapter) Sent(t *testing.T, srv *Server, i int) Sent {
	t.Helper()
	reqs := srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("server saw %d requests, want request %d", len(reqs), i+1)
	}
	return a.Read(t, reqs[i])
}

// Sent is a request an adapter sent, in terms every provider's request
// maps to.
type Sent struct {
	// Messages are the conversation in order, the system prompt first
	// when the provider keeps it apart.
	Messages []Message
	// Tools are the tools the request declares.
	Tools []Tool
	// ToolChoice is the request's tool choice as sent, nil when it has
	// none; CallRequired says it requires a call of some tool, as the
	// provider documents that.
	ToolChoice   json.RawMessage
	CallRequired bool
	// Format is the provider's native output format as sent
	// (response_format, output_config, responseJsonSchema), nil when the
	// request has none.
	Format json.RawMessage
}

// Message is one message of a request. Role is "system", "user",
// "assistant" or "tool" (OpenAI's tool messages), the provider's own
// name mapped to these ("model" is "assistant").
type Message struct {
	Role  string
	Parts []Part
}

// Part is one part of a message.
type Part struct {
	// Kind is "text", "call" (a tool call of the assistant's), "result"
	// (a tool's result), or the provider's name of another part.
	Kind string
	// Text is a text part's text, or a result's output.
	Text string
	// ID is a call's ID, or the ID of the call a result answers.
	ID string
	// Name is a call's tool, or a result's where the provider names it.
	Name string
	// Args are a call's arguments as sent.
	Args string
}

// Tool is one tool a request declares.
type Tool struct {
	Name, Description string
	Schema            json.RawMessage
}

// Last returns the last message of s, failing t when there is none.
func (s Sent) Last(t *testing.T) Message {
	t.Helper()
	if len(s.Messages) == 0 {
		t.Fatal("the request has no messages")
	}
	return s.Messages[len(s.Messages)-1]
}

// Conversation is the messages after the system prompt.
func (s Sent) Conversation() []Message {
	m := s.Messages
	for len(m) > 0 && m[0].Role == "system" {
		m = m[1:]
	}
	return m
}

// Shape lists the messages as role:kinds, "assistant:text,call" say.
func (s Sent) Shape() []string {
	var out []string
	for _, m := range s.Messages {
		role := m.Role + ":"
		for i, p := range m.Parts {
			if i > 0 {
				role += ","
			}
			role += p.Kind
		}
		out = append(out, role)
	}
	return out
}

// Only returns the one part of m, failing t when m has another number of
// parts or its part is not of kind.
func (m Message) Only(t *testing.T, kind string) Part {
	t.Helper()
	if len(m.Parts) != 1 || m.Parts[0].Kind != kind {
		t.Fatalf("%s message = %+v, want one part, a %s", m.Role, m.Parts, kind)
	}
	return m.Parts[0]
}

// Result returns the one part of m, a tool's result, failing t when m
// has another number of parts or is no message a result travels in (the
// user's, or OpenAI's tool message).
func (m Message) Result(t *testing.T) Part {
	t.Helper()
	if m.Role != "user" && m.Role != "tool" {
		t.Fatalf("%s message = %+v, want a tool's result in the user's message", m.Role, m.Parts)
	}
	return m.Only(t, "result")
}

// Weather is the contract of the scenarios' typed runs.
type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

// Turn is a request of one user message.
var Turn = agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "Weather in Paris?"}}}

// Field is the member key of a JSON object's members, nil when it is
// absent or null.
func Field(members map[string]json.RawMessage, key string) json.RawMessage {
	v := members[key]
	if string(v) == "null" {
		return nil
	}
	return v
}
