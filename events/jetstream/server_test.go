package jetstream_test

import (
	"context"
	"errors"
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
	s, err := tryStartServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// tryStartServer starts a server with opts and waits until it listens.
func tryStartServer(opts *server.Options) (*server.Server, error) {
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, err
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		s.WaitForShutdown()
		return nil, errors.New("nats-server did not start")
	}
	return s, nil
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
// cluster and returns them once the cluster has a meta leader. Their
// route ports are reserved, freed, then listened on: another process may
// take one in between, so a cluster that does not start is started again
// on new ports, three times at most.
func startCluster(t *testing.T) []*server.Server {
	t.Helper()
	servers, _ := startClusterWith(t)
	return servers
}

// startClusterWith is startCluster that also returns each server's
// options, to start a stopped one again (on the same store and route).
func startClusterWith(t *testing.T) ([]*server.Server, []*server.Options) {
	t.Helper()
	var servers []*server.Server
	var opts []*server.Options
	var err error
	for range 3 {
		if servers, opts, err = tryStartCluster(t); err == nil {
			break
		}
		t.Logf("starting the cluster again: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, s := range servers {
			s.Shutdown()
			s.WaitForShutdown()
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		for _, s := range servers {
			if s.JetStreamIsLeader() {
				return servers, opts
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("the cluster elected no JetStream meta leader")
		case <-time.After(20 * time.Millisecond): // poll, bounded by ctx
		}
	}
}

// tryStartCluster starts three servers routed to each other on route
// ports reserved just before; on a failure it stops those it started.
func tryStartCluster(t *testing.T) ([]*server.Server, []*server.Options, error) {
	ln := make([]net.Listener, 3) // reserve three route ports
	for i := range ln {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, err
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
	servers := make([]*server.Server, 0, 3)
	var opts []*server.Options
	for i := range 3 {
		o := &server.Options{
			Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			ServerName: fmt.Sprintf("n%d", i+1),
			Cluster:    server.ClusterOpts{Name: "enforcer", Host: "127.0.0.1", Port: ports[i]},
			Routes:     server.RoutesFromStr(routes[1:]),
		}
		s, err := tryStartServer(o)
		if err != nil {
			for _, s := range servers {
				s.Shutdown()
				s.WaitForShutdown()
			}
			return nil, nil, err
		}
		servers = append(servers, s)
		opts = append(opts, o)
	}
	return servers, opts, nil
}
