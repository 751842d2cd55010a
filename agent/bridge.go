package agent

import "context"

// generateUnlessDone calls m.Generate on a goroutine of its own and
// returns its reply, or context.Cause(ctx) as soon as ctx ends; the call
// is then left to finish, and what it gives is dropped. A panic in
// Generate is panicked again here, on the caller's goroutine, as if
// Generate ran on it.
func generateUnlessDone(ctx context.Context, m Model, req Request) (Response, error) {
	done := make(chan reply, 1) // buffered: an abandoned call sends and exits
	go func() {
		var r reply
		returned := false
		defer func() {
			if !returned { // a panic, or runtime.Goexit (recover gives nil)
				r = reply{panic: &panicked{recover()}}
			}
			done <- r
		}()
		r.resp, r.err = m.Generate(ctx, req)
		returned = true
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			panic(r.panic.v)
		}
		return r.resp, r.err
	case <-ctx.Done():
		return Response{}, context.Cause(ctx)
	}
}

// reply is what a model call on a goroutine of its own gave: its
// response and error, or what it panicked with.
type reply struct {
	resp  Response
	err   error
	panic *panicked
}

// readStream calls m.GenerateStream(ctx, req) and hands take each chunk
// until take returns false or the reply ends, as a range loop would; it
// reports false when run ended first.
//
// When run can end, the model's code runs on a goroutine of its own, in
// step with take: the iterator's yield returns only once take has read the
// chunk, false when take stopped. Once run ends while the model has not
// given its next chunk, readStream returns at once, and the model, if it
// ignores ctx, is left to finish; what it gives after that is dropped.
// When take stops, readStream waits for the iterator to return (a model
// that releases its connection), unless run ends first; a panic in the
// model's code, before or after take stopped, is panicked again on the
// caller's goroutine, as a range loop there would.
func readStream(run, ctx context.Context, m StreamingModel, req Request, take func(Chunk, error) bool) bool {
	if run.Done() == nil { // never cancelled: nothing to return early for
		for c, err := range m.GenerateStream(ctx, req) {
			if !take(c, err) {
				break
			}
		}
		return true
	}
	p := &pipe{items: make(chan streamed, 1), next: make(chan bool, 1), quit: make(chan struct{}), exited: make(chan struct{})}
	go p.produce(ctx, m, req)
	defer close(p.quit)
	for {
		select {
		case <-run.Done():
			return false
		case it := <-p.items:
			switch {
			case it.panic != nil:
				panic(it.panic.v) // as if the iterator ran on this goroutine
			case it.end:
				return true
			case !take(it.c, it.err):
				p.next <- false
				select {
				case <-p.exited:
					// A panic after the break (a yield after yield returned
					// false, a cleanup's) is the model's too, as it would be
					// from a range loop on this goroutine.
					// It was sent before exited closed.
					select {
					case it := <-p.items:
						if it.panic != nil {
							panic(it.panic.v)
						}
					default:
					}
				case <-run.Done():
				}
				return true
			}
			p.next <- true
		}
	}
}

// pipe carries a stream's chunks, one at a time, from the goroutine that
// runs its iterator to [readStream].
type pipe struct {
	items  chan streamed // a chunk, the reply's end, or a panic
	next   chan bool     // the chunk was read: whether yield returns true
	quit   chan struct{} // closed when readStream returns
	exited chan struct{} // closed when produce returns
}

// streamed is one item of a [pipe].
type streamed struct {
	c     Chunk
	err   error
	end   bool
	panic *panicked
}

// produce ranges over the model's reply, sending each chunk and waiting
// for readStream to read it before its yield returns.
func (p *pipe) produce(ctx context.Context, m StreamingModel, req Request) {
	defer close(p.exited)
	returned := false
	defer func() {
		if !returned { // a panic, or runtime.Goexit (recover gives nil)
			p.send(streamed{panic: &panicked{recover()}})
		}
	}()
	ended := true // the reply ended, not readStream's reading
loop:
	for c, err := range m.GenerateStream(ctx, req) {
		if !p.send(streamed{c: c, err: err}) {
			ended = false
			break
		}
		select {
		case more := <-p.next:
			if !more {
				ended = false
				break loop
			}
		case <-p.quit:
			ended = false
			break loop
		}
	}
	returned = true // a panic after a break is the model's too: it is set only past the loop
	if ended {
		p.send(streamed{end: true})
	}
}

// send sends it to readStream, unless readStream has returned.
func (p *pipe) send(it streamed) bool {
	select {
	case p.items <- it:
		return true
	case <-p.quit:
		return false
	}
}
