// Package events is the session stream: the durable record of what
// happened in a session, folded into the JSON-RPC 2.0 notifications a
// streaming client sees while a turn is still running.
//
// A [Stream] appends events ([TurnStarted], [TurnRetry], [ModelRetry],
// [TurnCompleted], …) to a [Log] — in memory ([NewMemoryLog]), or a file
// of one JSON record per line that survives a crash ([OpenFile]) — and
// only then hands the folded [Notification] to subscribers
// ([Stream.Subscribe]), to [Stream.WaitTurn], and to HTTP clients of its
// Server-Sent Events handler ([Stream.ServeHTTP]):
//
//	log, err := events.OpenFile("session.ndjson")
//	if err != nil { … }
//	s, err := events.NewStream(sessionID, log)
//	if err != nil { … }
//	defer s.Close()
//	http.Handle("/events", s) // Server-Sent Events
//
//	s.Append(events.TurnStarted{TurnID: "t1"})
//	s.Append(events.ModelRetry{TurnID: "t1", Attempt: 1, NextAttempt: 2, MaxAttempts: 3,
//		RetryDelay: 4 * time.Second, ErrorKind: events.KindRateLimit})
//	s.Append(events.TurnCompleted{TurnID: "t1", Terminal: events.TerminalCompleted})
//
//	// a client:
//	for n, err := range events.ReadSSE(resp.Body) {
//		if err != nil { … }
//		fmt.Println(n.Describe(0)) // attempt 1/3 · retrying in 4s · rate limited
//	}
//
// # Events and notifications
//
// Each event type's documentation names its record kind, the method it
// folds to, its producer contract and the line [Notification.Describe] gives for it.
// Every notification's params carry sessionId, turnId, viewCursor and a
// sourceRange citing the one record it folds from.
//
// # Clients
//
// A Go client compares [Notification].Method with the [Method] constants
// ([MethodTurnRetry], …), decodes the params with [Notification.Event]
// into the event type, every field intact, and stops following a turn at
// the first notification for which [Notification.IsTerminal] holds. A
// turn/retryScheduled says what it retries ([TurnRetry].Kind): a
// corrective turn or the whole turn.
//
// A person opens the stream's URL in a browser and gets a live page of
// the session (see [Stream.ServeHTTP]): each turn's state, its retries
// with a countdown, its ledger rows and its outcome.
//
// Retry notifications (turn/retryScheduled, turn/modelRetryScheduled) are
// non-terminal: they never resolve WaitTurn; only turn/completed and
// turn/unqueued do. They carry the recorded backoff, never a fire time;
// Describe renders them with a local countdown.
//
// # Producers
//
// [Stream.Append] refuses an event that breaks its producer contract with
// an error matching [ErrInvalid] and records nothing. A producer must not
// leave a turn open because of that: when its [TurnCompleted] is refused,
// it appends a TurnCompleted it knows to be valid instead (for example
// Terminal [TerminalFailed] with Kind [FailureLogError]), so that
// WaitTurn and clients still see the turn end.
//
// An error matching [ErrUnavailable] means the log could not be reached
// in time (a shared log electing its leader): the stream stays open,
// keeps the event and appends it again before the next one, in the
// background and at Close, so a turn that started still ends in the log,
// in order; see [Stream.Append]. A producer does nothing more: its
// TurnCompleted is kept too, and one appended in its place would be a
// second terminal. An error matching [ErrDropped] means the stream kept
// as many records as it may and lost this event; the end of a turn that
// started is never dropped.
//
// Any other error means the log could not store the record (an I/O error,
// a failed fsync, a file log whose file was moved — see [OpenFile]), and a
// log that failed once may refuse every later append, so the turn's end
// could never be recorded. The stream therefore closes itself: every
// pending and later [Stream.WaitTurn] and [Stream.Subscribe] — and every
// later Append — ends with an error matching [ErrClosed] that also wraps
// the log's error (errors.Is finds both), instead of waiting for a
// turn/completed that cannot come. Stream.Close still closes the log.
//
// # Cursors
//
// Each notification carries an opaque, strictly increasing viewCursor
// ([Notification.Cursor]); a client that reconnects with the last one it
// saw gets every later notification exactly once. A cursor also names the
// record it was issued for: if the log no longer holds that record — lost
// to a power failure under [SyncEvery], or a backup restored — resuming
// from it fails with [ErrStale] (and over HTTP with 410 Gone) instead of
// silently skipping the records that took its place. The client then
// starts over without a cursor.
//
// # Bounds
//
// Free-text fields are clipped to 16 KiB. Session, turn and command IDs are
// at most 256 bytes of valid UTF-8 without control characters, format
// characters (Unicode category Cf: bidi overrides, zero-width characters)
// or line and paragraph separators; others are refused with [ErrInvalid].
// A file log line is at most 16 MiB: a longer one, or a last line that
// reached the bound without its newline, is [ErrCorrupt], not a record
// still being written. So is a line that is JSON but no record, even last:
// no crash leaves one. [ReadSSE] refuses a line or event over 1 MiB.
// An HTTP client must accept each event within 10 seconds
// (a write deadline) or its response ends; the response also ends when
// the stream closes.
//
// # Concurrency
//
// A file log is written by one process at a time: OpenFile takes an
// exclusive lock on the file (flock, on Unix) and a second writer gets
// [ErrLocked]. On other systems no lock is taken, and two writers would
// damage the log. The lock follows the file, not its name, so a log whose
// file is renamed or deleted while open (log rotation, mv) refuses every
// later append with [ErrClosed], and its stream closes; so does one whose
// file is truncated under it (copytruncate rotation), which would lose
// records it acknowledged; see [OpenFile].
//
// # Readers in other processes
//
// A Stream delivers live what it appends itself. A process that serves
// the session without writing it opens it with [Follow] over a
// [Follower] — [FollowFile] for a file another process on the machine
// writes, or a shared log such as the JetStream one (module
// events/jetstream) — and its subscribers, WaitTurn and SSE handler
// deliver the other process's records, in order, each exactly once.
// Package events/logtest is the Log contract as a test suite.
package events
