// Package jetstream is an [events.Log] on NATS JetStream: a session
// stream that any number of machines read live and that survives a
// restart of any of them, stored — and replicated, R1 or R3 — by the NATS
// cluster a deployment already runs. It is a module of its own, so that
// the core module keeps its three dependencies.
//
// # Layout
//
// One JetStream stream holds every session (default name
// ENFORCER_SESSIONS, [WithStream]); each session has one subject in it,
// "<prefix>.<session>" (default prefix "enforcer.session",
// [WithSubjectPrefix]), and each record is one message on that subject:
// the record's JSON line (see [events.Record]), no headers of its own. A
// session ID made only of ASCII letters, digits, '-' and '_' is the
// subject's last token as is; any other ID is written "~" followed by its
// unpadded base64url form, so every ID maps to one valid token.
//
// The stream must exist with subjects "<prefix>.>" and limits retention
// (no MaxAge, MaxMsgs or MaxBytes that would drop records of a live
// session, no MaxMsgsPerSubject), or be created by [Open] when given
// [CreateStream]; Open refuses, with [events.ErrInvalid], a stream whose
// subjects do not take the session's or whose retention is not limits (a
// work-queue or interest stream would delete what the log's consumers
// read):
//
//	nats stream add ENFORCER_SESSIONS --subjects 'enforcer.session.>' \
//	    --storage file --replicas 3 --retention limits --defaults
//
// # Writers and readers
//
// [Log.Append] publishes with the expected last sequence of the session's
// subject (Nats-Expected-Last-Subject-Sequence), so two writers of one
// session cannot interleave or duplicate records: the second gets an error
// matching [events.ErrConflict] and nothing is written. Append returns nil
// once the stream acknowledged the record, that is once it is stored on
// the stream's replicas as configured (a majority of three for R3).
//
// # Failover
//
// A publish that gets no answer, or meets a stream electing its leader,
// is sent again, the same message, until [WithRetry] passes. Each
// carries the expected subject sequence and a Nats-Msg-Id of subject and
// record number, so a resend of a record whose first publish was stored
// meets "wrong last sequence" (or a duplicate acknowledgement); the
// subject's last message is then read back and taken as this record when
// its digest is the record's, and as another writer's (ErrConflict)
// otherwise. [Open] retries the same way within its context; and its
// first two reads (the stream's info, the subject's last message), when
// unanswered for four times as long as such reads usually take in this
// process (250ms at least), are sent again beside themselves, and again
// after twice that, … within [WithTimeout], so an Open during an
// election waits about as long as the election, not a timeout more. What is
// still unanswered fails with events.ErrUnavailable: the record may be
// stored, and Append takes the same record again (an events.Stream does
// that by itself). The log closes only on what cannot heal: another
// writer, a closed connection, a record it cannot publish.
//
// # Durability
//
// An acknowledged record survives a crash or restart of any nats-server.
// Against a power failure, what counts is the server's fsync policy, as
// with the file log's SyncEvery: nats-server writes each message to its
// file store at once but fsyncs it every sync_interval (default two
// minutes). On R3 a power failure of one machine loses nothing — the
// record is on two others. On R1, a power failure of the server's machine
// can lose the records of the last sync_interval, unless the server runs
// with
//
//	jetstream { sync_interval: always }
//
// (fsync before each acknowledgement, at a cost in throughput). Records
// so lost are reported to clients that saw them as [events.ErrStale]: a
// cursor names its record, not only its position.
//
// With [Async], Append returns once the record is queued and a goroutine
// of the log publishes the queue in order, one record at a time, each with
// the expected subject sequence: the one-writer guarantee holds, the
// caller no longer waits for the round trip, and a writer crash can lose
// the queue — at most n records whose Append returned nil; see Async for
// the loss window and for why the publishes are not pipelined.
//
// Every open Log is also a reader: [Log.Wait] watches the subject, so
// [events.Follow] over it delivers, on any machine, the records another
// machine appends. The watch, [Open], and [Log.Records] for records the
// log no longer keeps in memory, read the subject through an ephemeral
// consumer (memory storage, one replica, no acks) that they delete when
// done — Open and Records in batches, the watch in long polls of up to
// 5s; so the NATS user needs permission to create and delete consumers
// on the stream, and to read messages by sequence
// ($JS.API.STREAM.MSG.GET); a read or a poll that comes up short asks
// its consumer what it delivered ($JS.API.CONSUMER.INFO), to tell a
// foreign message the client kept from it (ErrCorrupt) from a slow
// server or a quiet session. A stream deleted under a watch, or deleted
// and created again with another history, ends it with ErrCorrupt instead
// of delivering that history as the rest of the one read: before each
// consumer it creates, the watch checks the stream's creation time
// ($JS.API.STREAM.INFO) and that the message of the last record read
// still holds it, and every record read back from the stream is checked
// against a digest the log keeps of it (8 bytes a record).
//
//	js, _ := jetstream.New(nc) // github.com/nats-io/nats.go/jetstream
//	log, err := enforcerjs.Open(ctx, js, "session-1", enforcerjs.CreateStream(3))
//	if err != nil { … }
//	s, err := events.NewStream("session-1", log) // the writer
//	// elsewhere: events.Follow("session-1", log) // a reader
package jetstream
