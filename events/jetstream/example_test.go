package jetstream_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// A worker writes a session to JetStream; a UI server on another machine
// follows it. Here both ends, and an embedded nats-server, run in one
// process; in a deployment nats.Connect names your cluster.
func Example() {
	dir, err := os.MkdirTemp("", "nats")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		log.Fatal(err)
	}
	ns.Start()
	defer ns.Shutdown()
	ns.ReadyForConnections(10e9)

	connect := func() jetstream.JetStream {
		nc, err := nats.Connect(ns.ClientURL())
		if err != nil {
			log.Fatal(err)
		}
		js, err := jetstream.New(nc)
		if err != nil {
			log.Fatal(err)
		}
		return js
	}
	ctx := context.Background()

	// The worker: the session's one writer.
	wlog, err := enforcerjs.Open(ctx, connect(), "session-1", enforcerjs.CreateStream(1))
	if err != nil {
		log.Fatal(err)
	}
	w, err := events.NewStream("session-1", wlog)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	// The UI server: a read-only stream over the same session; serve it
	// with http.Handle("/sessions/session-1", r).
	rlog, err := enforcerjs.Open(ctx, connect(), "session-1")
	if err != nil {
		log.Fatal(err)
	}
	r, err := events.Follow("session-1", rlog)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()

	w.Append(events.TurnStarted{TurnID: "t1"})
	w.Append(events.TurnCompleted{TurnID: "t1", Terminal: "completed"})
	n, err := r.WaitTurn(ctx, "t1")
	fmt.Println(n.Method, err)
	// Output: turn/completed <nil>
}
