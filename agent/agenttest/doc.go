// Package agenttest scripts models for tests of code built on package
// agent, the way net/http/httptest serves tests of HTTP code.
//
// A [Model] replies with its steps ([Reply], [CallTools], [Fail]) in order
// and records every request it received ([Model.Requests]). It fails the
// test when the script runs out, and, at cleanup, when steps are left
// unused — so a test cannot pass without the conversation it scripted.
//
//	m := agenttest.NewModel(t,
//		agenttest.Reply("Sure! The city is Paris."), // prose: json-parse fails
//		agenttest.Reply(`{"city":"Paris"}`),
//	)
//	a := agent.New(m, agent.WithOutputSchema(s), agent.WithOutputRetries(2))
//	res, err := a.Run(ctx, "Where is the Louvre?")
//	// res.Attempts: retried, passed
//
// # Replay
//
// A run saved as JSON (json.Marshal of its [agent.Result], say from a
// production failure) replays as a test: [Replay] reads it into a Model
// that replies as the recorded one did, the run's input and its rows, and
// [Recording.Check] asserts the replay's ledger is the same or better (a
// pass in no more attempts). A recording with cut rows (a streaming run's
// answers that early abort stopped) replays through a model that streams,
// so the same agent cuts them at the same byte.
//
//	rec := agenttest.Replay(t, "testdata/failed-run.json")
//	res, _ := agent.New(rec.Model, opts...).Run(ctx, rec.Input)
//	rec.Check(t, res)
//
// # Streaming
//
// [NewStreamingModel] scripts a model that streams ([agent.StreamingModel]):
// the loop reads each reply as chunks, split where the test says
// ([Step.InChunks]) or scripted one by one ([Chunks]), and may fail
// mid-reply ([Step.FailAfter]). [StreamingModel.Consumed] says how much of
// each reply the loop read before it stopped, so a test can assert that a
// doomed answer was cut early:
//
//	m := agenttest.NewStreamingModel(t,
//		agenttest.Reply("Sure! Here it is: {...}").InChunks(1),
//		agenttest.Reply(`{"city":"Paris"}`),
//	)
//	// after a run with retries: m.Consumed()[0].Bytes == 1, Stopped
//
// # Reports
//
// Unused steps are reported at the line that called [NewModel]. A request
// past the script arrives through the code under test, so its report names
// that line in its text; Generate then returns [ErrScriptExhausted].
package agenttest
