package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/enforcer-go/enforcer/events"
)

// view is `enforcer view`: the live page (and the event stream) of a file
// log, on a loopback address, following the file until ctx ends.
func view(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("view")
	addr := fs.String("addr", "127.0.0.1:0", "the loopback address to listen on (port 0 picks a free one)")
	files, err := parse(fs, args, "LOG")
	if err != nil {
		return err
	}
	if err := loopback(*addr); err != nil {
		return fmt.Errorf("view: -addr %q: %w", *addr, err)
	}
	log, err := followLog(files[0])
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	// The stream delivers the records another process appends to the
	// file as they land, to the page and every event-stream client; the
	// session is the one the log's first record names, whenever it lands.
	s, err := events.Follow("", log)
	if err != nil {
		log.Close()
		return fmt.Errorf("view: %w", err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	_, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		ln.Close()
		return fmt.Errorf("view: %w", err)
	}
	srv := &http.Server{Handler: localHost(port, rootOnly(s)), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "http://%s/\n", ln.Addr())
	// Watch the stream until interrupted or until the log fails (the
	// stream then closes, and says why).
	var ferr error
	for _, err := range s.Subscribe(ctx, "") {
		if err != nil {
			if ctx.Err() == nil {
				ferr = err
			}
			break
		}
	}
	s.Close() // ends the event streams, so Shutdown need not wait for them
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

// localHost serves h only to requests whose Host is this machine by a
// name no one else controls — localhost or a loopback IP — with the
// listening port, and refuses the others with 403 Forbidden: a web page
// whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own
// name, so it cannot read the session.
func localHost(port string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, p, err := net.SplitHostPort(r.Host)
		if err != nil || p != port || !strings.EqualFold(host, "localhost") && !isLoopbackIP(host) {
			http.Error(w, "forbidden: this page is served to http://localhost:"+port+"/ only", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// rootOnly serves h at / and 404 Not Found elsewhere: the stream's
// handler answers any request that does not ask for the page with an
// event stream that never ends, which is no answer for /favicon.ico or a
// mistyped URL.
func rootOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// isLoopbackIP reports whether host is a loopback IP literal.
func isLoopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
