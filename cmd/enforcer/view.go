package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// view is `enforcer view`: the live page (and the event stream) of a file
// log, on a loopback address, following the file until ctx ends.
func view(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("view")
	addr := fs.String("addr", "127.0.0.1:0", "the loopback address to listen on (port 0 picks a free one)")
	if err := parse(fs, args, "LOG"); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("view: want one LOG, got %d arguments", fs.NArg())
	}
	if err := loopback(*addr); err != nil {
		return fmt.Errorf("view: -addr %q: %w", *addr, err)
	}
	r, err := openLog(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	defer r.close()
	v := &liveView{log: &fileView{r: r}}
	if err := v.next(); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if v.cur == nil {
		return fmt.Errorf("view: %s holds no records yet", fs.Arg(0))
	}
	defer func() { v.cur.Close() }()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	srv := &http.Server{Handler: v, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "http://%s/\n", ln.Addr())
	var ferr error
	for ferr == nil {
		if poll(ctx) != nil {
			break // interrupted
		}
		ferr = v.next()
	}
	v.close() // ends the event streams, so Shutdown need not wait for them
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("view: %w", err)
	}
	if ferr != nil {
		return fmt.Errorf("view: %w", ferr)
	}
	return nil
}

// liveView serves the stream of a file log that another process may be
// appending to. An events.Stream delivers live only what it appends
// itself, so when the file grows liveView makes a new Stream over all of
// it and closes the old one: each client's response then ends, the page
// reconnects (after the stream's one-second retry hint) with its last
// cursor, and the new stream resumes right after it. The cursors are the
// same, since both streams fold the same records.
type liveView struct {
	log  *fileView
	mu   sync.Mutex
	cur  *events.Stream // nil until the file holds a record
	seen int64          // the records cur holds
}

func (v *liveView) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	s := v.cur
	v.mu.Unlock()
	s.ServeHTTP(w, r)
}

// next reads what was appended to the file and, if anything was, puts a
// stream over all of it in place of the current one.
func (v *liveView) next() error {
	n, err := v.log.grow()
	if err != nil || n == v.seen {
		return err
	}
	s, err := events.NewStream(v.log.session(), v.log)
	if err != nil {
		return err
	}
	v.mu.Lock()
	old := v.cur
	v.cur, v.seen = s, n
	v.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

func (v *liveView) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.cur.Close()
}

// loopback refuses an address that is not on this machine only.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return errors.New("not a loopback address: the page is served to this machine only")
	}
	return nil
}
