package jetstream_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/enforcer-go/enforcer/events"
	enforcerjs "github.com/enforcer-go/enforcer/events/jetstream"
)

// A writer that must not wait for the stream at each record: Append
// queues (at most 16 records, the loss window of a crash) and Close
// publishes the rest and reports any error, a conflict with another
// writer included. Through a leader election the queue is resent, each
// request tried for WithRetry; Flush waits until what is queued is stored.
func ExampleAsync() {
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
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	wlog, err := enforcerjs.Open(ctx, js, "session-1", enforcerjs.CreateStream(1), enforcerjs.Async(16), enforcerjs.WithRetry(30*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	w, err := events.NewStream("session-1", wlog)
	if err != nil {
		log.Fatal(err)
	}
	w.Append(events.TurnStarted{TurnID: "t1"})
	w.Append(events.TurnCompleted{TurnID: "t1", Terminal: "completed"})
	if err := wlog.Flush(ctx); err != nil { // the turn is stored; the log stays open
		log.Fatal(err)
	}
	if err := w.Close(); err != nil { // publishes the queue, waits for the acknowledgements
		log.Fatal(err)
	}

	rlog, err := enforcerjs.Open(ctx, js, "session-1")
	if err != nil {
		log.Fatal(err)
	}
	defer rlog.Close()
	fmt.Println(rlog.Last(), "records stored")
	// Output: 2 records stored
}
