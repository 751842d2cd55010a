package jetstream_test

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// startServer starts an embedded nats-server with JetStream file storage
// in dir on port (-1: any free one) and stops it when the test ends.
func startServer(t testing.TB, dir string, port int, edit ...func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{
		Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir,
		NoLog: true, NoSigs: true,
	}
	for _, f := range edit {
		f(opts)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// port is the client port of s.
func port(s *server.Server) int { return s.Addr().(*net.TCPAddr).Port }

// connect connects to urls and returns a JetStream context; the
// connection closes when the test ends. Publishes made while it is
// disconnected fail at once instead of waiting in a reconnect buffer.
func connect(t testing.TB, urls string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(urls, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond),
		nats.ReconnectBufSize(-1), nats.Timeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// startCluster starts three embedded servers routed into one JetStream
// cluster and returns them once the cluster has a meta leader.
func startCluster(t *testing.T) []*server.Server {
	t.Helper()
	ln := make([]net.Listener, 3) // reserve three route ports
	for i := range ln {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln[i] = l
	}
	routes := ""
	ports := make([]int, 3)
	for i, l := range ln {
		ports[i] = l.Addr().(*net.TCPAddr).Port
		routes += fmt.Sprintf(",nats-route://127.0.0.1:%d", ports[i])
		l.Close()
	}
	servers := make([]*server.Server, 3)
	for i := range servers {
		servers[i] = startServer(t, t.TempDir(), -1, func(o *server.Options) {
			o.ServerName = fmt.Sprintf("n%d", i+1)
			o.Cluster = server.ClusterOpts{Name: "enforcer", Host: "127.0.0.1", Port: ports[i]}
			o.Routes = server.RoutesFromStr(routes[1:])
		})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		for _, s := range servers {
			if s.JetStreamIsLeader() {
				return servers
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("the cluster elected no JetStream meta leader")
		case <-time.After(20 * time.Millisecond): // poll, bounded by ctx
		}
	}
}
