// Package events is the session stream: the durable record of what
// happened in a session, folded into the JSON-RPC 2.0 notifications a
// streaming client sees while a turn is still running.
//
// A Stream appends events (TurnStarted, TurnRetry, ModelRetry,
// SchemaRetry, TurnCompleted, …) to a Log — in memory, or a file of one
// JSON record per line that survives a crash — and only then hands the
// folded notification to subscribers, to WaitTurn, and to HTTP clients of
// its Server-Sent Events handler. Each notification carries an opaque,
// strictly increasing viewCursor; a client that reconnects with the last
// one it saw gets every later notification exactly once.
//
// Retry notifications (turn/retryScheduled, turn/modelRetryScheduled) are
// non-terminal: they never resolve WaitTurn; only turn/completed and
// turn/unqueued do. They carry the recorded backoff, never a fire time;
// Describe renders them with a local countdown:
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
//	s.Append(events.TurnCompleted{TurnID: "t1", Terminal: "completed"})
//
//	// a client:
//	for n, err := range events.ReadSSE(resp.Body) {
//		if err != nil { … }
//		fmt.Println(events.Describe(n, 0)) // rate limited · retrying in 4s · attempt 1/3
//	}
//
// Methods and their events: turn/started (TurnStarted), turn/completed
// (TurnCompleted), turn/unqueued (TurnUnqueued), turn/retryScheduled
// (TurnRetry), turn/modelRetryScheduled (ModelRetry), and the output
// contract's ledger: output/schemaRetry (SchemaRetry, the
// output_schema_retry event) and output/schemaExhausted (SchemaExhausted,
// output_schema_exhausted). Every notification's params carry sessionId,
// turnId, viewCursor and sourceRange.
package events
