package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/enforcer-go/enforcer/middleware"
)

// appendStep returns a step whose Funcs append suffix and record the call.
func appendStep(name, suffix string, calls *[]string) middleware.Middleware {
	f := func(ctx context.Context, s string) (string, error) {
		*calls = append(*calls, name)
		return s + suffix, nil
	}
	return middleware.Middleware{Name: name, Input: f, Output: f}
}

func output(name string, f middleware.Func) middleware.Middleware {
	return middleware.Middleware{Name: name, Output: f}
}

func pass(ctx context.Context, s string) (string, error) { return s, nil }

func TestRunOrder(t *testing.T) {
	for _, phase := range []middleware.Phase{middleware.PhaseInput, middleware.PhaseOutput} {
		t.Run(fmt.Sprintf("%s steps run in the order given", phase), func(t *testing.T) {
			var calls []string
			ms := []middleware.Middleware{
				appendStep("a", "1", &calls),
				appendStep("b", "", &calls),
				appendStep("c", "3", &calls),
			}
			got, trace, err := middleware.Run(context.Background(), phase, ms, "x")
			if err != nil {
				t.Fatal(err)
			}
			if want := "x13"; got != want {
				t.Errorf("text = %q, want %q", got, want)
			}
			if want := []string{"a", "b", "c"}; !reflect.DeepEqual(calls, want) {
				t.Errorf("calls = %v, want %v", calls, want)
			}
			want := []middleware.Step{
				{Name: "a", Phase: phase, Changed: true, Text: "x1"},
				{Name: "b", Phase: phase, Changed: false, Text: "x1"},
				{Name: "c", Phase: phase, Changed: true, Text: "x13"},
			}
			if !reflect.DeepEqual(trace, want) {
				t.Errorf("trace = %+v, want %+v", trace, want)
			}
		})
	}
}

func TestRunSkip(t *testing.T) {
	tests := []struct {
		name      string
		phase     middleware.Phase
		ms        []middleware.Middleware
		wantText  string
		wantNames []string
	}{
		{
			name:  "an output run skips steps with only Input",
			phase: middleware.PhaseOutput,
			ms: []middleware.Middleware{
				{Name: "in", Input: func(context.Context, string) (string, error) { return "IN", nil }},
				{Name: "out", Output: func(context.Context, string) (string, error) { return "OUT", nil }},
			},
			wantText:  "OUT",
			wantNames: []string{"out"},
		},
		{
			name:  "an input run skips steps with only Output",
			phase: middleware.PhaseInput,
			ms: []middleware.Middleware{
				{Name: "in", Input: func(context.Context, string) (string, error) { return "IN", nil }},
				{Name: "out", Output: func(context.Context, string) (string, error) { return "OUT", nil }},
			},
			wantText:  "IN",
			wantNames: []string{"in"},
		},
		{
			name:      "a run with no steps returns the text and a nil trace",
			phase:     middleware.PhaseOutput,
			wantText:  "same",
			wantNames: nil,
		},
		{
			name:      "a run where every step is skipped returns a nil trace",
			phase:     middleware.PhaseOutput,
			ms:        []middleware.Middleware{{Name: "empty"}, {Name: "in", Input: pass}},
			wantText:  "same",
			wantNames: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, trace, err := middleware.Run(context.Background(), tt.phase, tt.ms, "same")
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			var names []string
			for _, s := range trace {
				names = append(names, s.Name)
			}
			if !reflect.DeepEqual(names, tt.wantNames) {
				t.Errorf("trace names = %v, want %v", names, tt.wantNames)
			}
			if tt.wantNames == nil && trace != nil {
				t.Errorf("trace = %#v, want nil", trace)
			}
		})
	}
}

func TestRunUnknownPhase(t *testing.T) {
	t.Run("an unknown phase is an error, not a denial, and runs nothing", func(t *testing.T) {
		called := false
		ms := []middleware.Middleware{output("a", func(ctx context.Context, s string) (string, error) {
			called = true
			return s, nil
		})}
		got, trace, err := middleware.Run(context.Background(), "act", ms, "x")
		if err == nil || errors.Is(err, middleware.ErrDenied) {
			t.Fatalf("err = %v, want a non-denial error", err)
		}
		if got != "" || trace != nil || called {
			t.Errorf("got %q, trace %v, called %t; want \"\", nil, false", got, trace, called)
		}
	})
}

func TestExplain(t *testing.T) {
	tests := []struct {
		name        string
		f           middleware.Func
		wantChanged bool
		wantWhy     string
	}{
		{
			name: "a rewrite records its note",
			f: func(ctx context.Context, s string) (string, error) {
				middleware.Explain(ctx, "redacted 2 emails")
				return "[email] [email]", nil
			},
			wantChanged: true,
			wantWhy:     "redacted 2 emails",
		},
		{
			name: "several notes are joined in order",
			f: func(ctx context.Context, s string) (string, error) {
				middleware.Explain(ctx, "first")
				middleware.Explain(ctx, "")
				middleware.Explain(ctx, "second")
				return s + "!", nil
			},
			wantChanged: true,
			wantWhy:     "first; second",
		},
		{
			name: "a step that changes nothing may still explain",
			f: func(ctx context.Context, s string) (string, error) {
				middleware.Explain(ctx, "checked, nothing to redact")
				return s, nil
			},
			wantChanged: false,
			wantWhy:     "checked, nothing to redact",
		},
		{
			name: "a note made through a derived context still counts",
			f: func(ctx context.Context, s string) (string, error) {
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				middleware.Explain(ctx, "derived")
				return s, nil
			},
			wantWhy: "derived",
		},
		{
			name:        "a step that does not explain has an empty Why",
			f:           func(ctx context.Context, s string) (string, error) { return s + "?", nil },
			wantChanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, trace, err := middleware.Run(context.Background(), middleware.PhaseOutput, []middleware.Middleware{output("s", tt.f)}, "a@b c@d")
			if err != nil {
				t.Fatal(err)
			}
			if got := trace[0]; got.Changed != tt.wantChanged || got.Why != tt.wantWhy {
				t.Errorf("step = {Changed:%t Why:%q}, want {Changed:%t Why:%q}", got.Changed, got.Why, tt.wantChanged, tt.wantWhy)
			}
		})
	}

	t.Run("notes stay with the step that made them", func(t *testing.T) {
		ms := []middleware.Middleware{
			output("a", func(ctx context.Context, s string) (string, error) { middleware.Explain(ctx, "from a"); return s, nil }),
			output("b", pass),
		}
		_, trace, _ := middleware.Run(context.Background(), middleware.PhaseOutput, ms, "x")
		if got, want := []string{trace[0].Why, trace[1].Why}, []string{"from a", ""}; !reflect.DeepEqual(got, want) {
			t.Errorf("whys = %q, want %q", got, want)
		}
	})

	t.Run("explaining outside Run does nothing", func(t *testing.T) {
		middleware.Explain(context.Background(), "ignored")
	})

	t.Run("explaining after the step returned is ignored", func(t *testing.T) {
		var kept context.Context
		ms := []middleware.Middleware{output("a", func(ctx context.Context, s string) (string, error) {
			kept = ctx
			return s, nil
		})}
		_, trace, _ := middleware.Run(context.Background(), middleware.PhaseOutput, ms, "x")
		middleware.Explain(kept, "late")
		if got := trace[0].Why; got != "" {
			t.Errorf("Why = %q, want empty", got)
		}
	})

	t.Run("a step may explain from several goroutines", func(t *testing.T) {
		ms := []middleware.Middleware{output("a", func(ctx context.Context, s string) (string, error) {
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() { defer wg.Done(); middleware.Explain(ctx, "n") }()
			}
			wg.Wait()
			return s, nil
		})}
		_, trace, _ := middleware.Run(context.Background(), middleware.PhaseOutput, ms, "x")
		if got, want := trace[0].Why, strings.Repeat("n; ", 7)+"n"; got != want {
			t.Errorf("Why = %q, want %q", got, want)
		}
	})
}

// denyCase is a step that stops the chain and what Run must report for it.
type denyCase struct {
	name       string
	f          middleware.Func
	wantReason string
	wantPanic  bool
	// wantExplicit says whether DeniedError.Err itself matches ErrDenied,
	// which tells an explicit Deny apart from a failing step.
	wantExplicit bool
	check        func(t *testing.T, de *middleware.DeniedError)
}

var errUpstream = errors.New("moderation service unavailable")

func TestRunDenies(t *testing.T) {
	tests := []denyCase{
		{
			name:         "a step returning Deny denies",
			f:            func(context.Context, string) (string, error) { return "", middleware.Deny("contains PII") },
			wantReason:   "contains PII",
			wantExplicit: true,
		},
		{
			name: "a step returning a wrapped Deny denies with the inner reason",
			f: func(context.Context, string) (string, error) {
				return "partial", fmt.Errorf("pii filter: %w", middleware.Deny("contains PII"))
			},
			wantReason:   "contains PII",
			wantExplicit: true,
		},
		{
			name:         "a Deny with an empty reason still denies",
			f:            func(context.Context, string) (string, error) { return "", middleware.Deny("") },
			wantReason:   "",
			wantExplicit: true,
		},
		{
			name:       "a plain error fails closed as a denial",
			f:          func(context.Context, string) (string, error) { return "answer", errUpstream },
			wantReason: errUpstream.Error(),
			check: func(t *testing.T, de *middleware.DeniedError) {
				if !errors.Is(de, errUpstream) {
					t.Errorf("errors.Is(err, errUpstream) = false, want true")
				}
			},
		},
		{
			name:       "a panic with a string denies",
			f:          func(context.Context, string) (string, error) { panic("boom") },
			wantReason: "panic: boom",
			wantPanic:  true,
			check: func(t *testing.T, de *middleware.DeniedError) {
				if de.Panic != "boom" || de.Err != nil {
					t.Errorf("Panic, Err = %#v, %v; want \"boom\", nil", de.Panic, de.Err)
				}
			},
		},
		{
			name:       "a panic with an error denies and unwraps to it",
			f:          func(context.Context, string) (string, error) { panic(errUpstream) },
			wantReason: "panic: " + errUpstream.Error(),
			wantPanic:  true,
			check: func(t *testing.T, de *middleware.DeniedError) {
				if !errors.Is(de, errUpstream) {
					t.Errorf("errors.Is(err, errUpstream) = false, want true")
				}
			},
		},
		{
			name:       "panic(nil) denies as a *runtime.PanicNilError",
			f:          func(context.Context, string) (string, error) { panic(nil) },
			wantReason: "panic: " + (&runtime.PanicNilError{}).Error(),
			wantPanic:  true,
			check: func(t *testing.T, de *middleware.DeniedError) {
				var pn *runtime.PanicNilError
				if !errors.As(de, &pn) {
					t.Errorf("errors.As(err, *runtime.PanicNilError) = false, want true")
				}
			},
		},
		{
			name: "a runtime error panic denies and unwraps to a runtime.Error",
			f: func(_ context.Context, s string) (string, error) {
				var m map[string]int
				m[s]++
				return s, nil
			},
			wantReason: "panic: assignment to entry in nil map",
			wantPanic:  true,
			check: func(t *testing.T, de *middleware.DeniedError) {
				var re runtime.Error
				if !errors.As(de, &re) {
					t.Errorf("errors.As(err, runtime.Error) = false, want true")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			afterCalled := false
			ms := []middleware.Middleware{
				output("before", func(_ context.Context, s string) (string, error) { return s + "+", nil }),
				output("guard", tt.f),
				output("after", func(_ context.Context, s string) (string, error) { afterCalled = true; return s, nil }),
			}
			got, trace, err := middleware.Run(context.Background(), middleware.PhaseOutput, ms, "answer")
			if got != "" {
				t.Errorf("text = %q, want \"\" so a denied answer cannot leak", got)
			}
			if afterCalled {
				t.Error("the step after the denial ran")
			}
			if want := []middleware.Step{{Name: "before", Phase: middleware.PhaseOutput, Changed: true, Text: "answer+"}}; !reflect.DeepEqual(trace, want) {
				t.Errorf("trace = %+v, want %+v", trace, want)
			}
			if !errors.Is(err, middleware.ErrDenied) {
				t.Errorf("errors.Is(err, ErrDenied) = false for %v", err)
			}
			var de *middleware.DeniedError
			if !errors.As(err, &de) {
				t.Fatalf("err = %T %v, want *DeniedError", err, err)
			}
			if de.Name != "guard" || de.Phase != middleware.PhaseOutput || de.Reason != tt.wantReason {
				t.Errorf("DeniedError = {Name:%q Phase:%q Reason:%q}, want {Name:%q Phase:%q Reason:%q}",
					de.Name, de.Phase, de.Reason, "guard", middleware.PhaseOutput, tt.wantReason)
			}
			if got := de.Panic != nil; got != tt.wantPanic {
				t.Errorf("Panic set = %t, want %t (Panic = %#v)", got, tt.wantPanic, de.Panic)
			}
			if got := errors.Is(de.Err, middleware.ErrDenied); got != tt.wantExplicit {
				t.Errorf("errors.Is(de.Err, ErrDenied) = %t, want %t", got, tt.wantExplicit)
			}
			if tt.check != nil {
				tt.check(t, de)
			}
		})
	}
}

func TestDenyError(t *testing.T) {
	t.Run("Deny's own error matches ErrDenied", func(t *testing.T) {
		if err := middleware.Deny("x"); !errors.Is(err, middleware.ErrDenied) {
			t.Errorf("errors.Is(Deny(x), ErrDenied) = false")
		}
	})
	t.Run("a nested Run's denial keeps the inner reason", func(t *testing.T) {
		inner := []middleware.Middleware{output("inner", func(context.Context, string) (string, error) {
			return "", middleware.Deny("inner reason")
		})}
		outer := []middleware.Middleware{output("outer", func(ctx context.Context, s string) (string, error) {
			out, _, err := middleware.Run(ctx, middleware.PhaseOutput, inner, s)
			return out, err
		})}
		_, _, err := middleware.Run(context.Background(), middleware.PhaseOutput, outer, "x")
		var de *middleware.DeniedError
		if !errors.As(err, &de) {
			t.Fatalf("err = %v, want *DeniedError", err)
		}
		if got, want := [2]string{de.Name, de.Reason}, [2]string{"outer", "inner reason"}; got != want {
			t.Errorf("Name, Reason = %q, want %q", got, want)
		}
	})
}

func TestRunCancel(t *testing.T) {
	cause := errors.New("user hung up")

	t.Run("a context done before Run calls no step", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		var calls []string
		got, trace, err := middleware.Run(ctx, middleware.PhaseOutput, []middleware.Middleware{appendStep("a", "1", &calls)}, "x")
		if !errors.Is(err, cause) || errors.Is(err, middleware.ErrDenied) {
			t.Errorf("err = %v, want the cause and not a denial", err)
		}
		if got != "" || trace != nil || calls != nil {
			t.Errorf("got %q, trace %v, calls %v; want \"\", nil, nil", got, trace, calls)
		}
	})

	t.Run("a context cancelled between steps stops before the next", func(t *testing.T) {
		ctx := &endsLater{Context: context.Background()} // see endsLater: the step's return comes first
		var calls []string
		ms := []middleware.Middleware{
			output("a", func(_ context.Context, s string) (string, error) { ctx.end(cause); return s + "a", nil }),
			appendStep("b", "b", &calls),
		}
		got, trace, err := middleware.Run(ctx, middleware.PhaseOutput, ms, "x")
		if !errors.Is(err, cause) || errors.Is(err, middleware.ErrDenied) {
			t.Errorf("err = %v, want the cause and not a denial", err)
		}
		if got != "" || calls != nil {
			t.Errorf("got %q, calls %v; want \"\", nil", got, calls)
		}
		if want := []middleware.Step{{Name: "a", Phase: middleware.PhaseOutput, Changed: true, Text: "xa"}}; !reflect.DeepEqual(trace, want) {
			t.Errorf("trace = %+v, want %+v", trace, want)
		}
	})

	t.Run("a step failing because the context is done reports the cancellation", func(t *testing.T) {
		ctx := &endsLater{Context: context.Background()} // see endsLater: the step's return comes first
		stepErr := errors.New("moderation call: connection reset")
		ms := []middleware.Middleware{output("a", func(context.Context, string) (string, error) {
			ctx.end(cause)
			return "", stepErr
		})}
		_, _, err := middleware.Run(ctx, middleware.PhaseOutput, ms, "x")
		if errors.Is(err, middleware.ErrDenied) {
			t.Errorf("err = %v, want not a denial", err)
		}
		if !errors.Is(err, cause) || !errors.Is(err, stepErr) {
			t.Errorf("err = %v, want it to wrap both the cause and the step's error", err)
		}
	})

	t.Run("a Deny while the context is done is still a denial", func(t *testing.T) {
		ctx := &endsLater{Context: context.Background()} // see endsLater: the step's return comes first
		ms := []middleware.Middleware{output("a", func(context.Context, string) (string, error) {
			ctx.end(cause)
			return "", middleware.Deny("no")
		})}
		_, _, err := middleware.Run(ctx, middleware.PhaseOutput, ms, "x")
		if !errors.Is(err, middleware.ErrDenied) {
			t.Errorf("err = %v, want a denial", err)
		}
	})
}

func BenchmarkRun(b *testing.B) {
	ms := []middleware.Middleware{output("a", pass), output("b", pass), output("c", pass)}
	ctx := context.Background()
	text := strings.Repeat(`{"city":"Paris","temp":21}`, 10)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := middleware.Run(ctx, middleware.PhaseOutput, ms, text); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRunReturnsWhenTheContextEndsInAStepThatIgnoresIt(t *testing.T) {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) }) // lets the abandoned step end
	entered := make(chan struct{})
	stuck := middleware.Middleware{Name: "stuck", Output: func(ctx context.Context, s string) (string, error) {
		close(entered)
		<-never
		middleware.Explain(ctx, "too late") // after Run returned: dropped
		return s, nil
	}}
	cause := errors.New("user hit stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-entered; cancel(cause) }()
	out, trace, err := middleware.Run(ctx, middleware.PhaseOutput, []middleware.Middleware{stuck}, "answer")
	if !errors.Is(err, cause) || errors.Is(err, middleware.ErrDenied) {
		t.Errorf("err = %v, want the cause, not a denial", err)
	}
	if out != "" || trace != nil {
		t.Errorf("Run = %q, %v; want nothing from the abandoned step", out, trace)
	}
}

// endsLater is a context with no Done channel that ends when end is
// called: its Err (and so context.Cause) is then err. A step that ends
// its run's context and then returns races Run's watch of a Done channel
// (Run never waits for a step once the context is done); with no Done
// channel Run calls the step inline, so the step's return comes first.
type endsLater struct {
	context.Context
	mu  sync.Mutex
	err error
}

func (c *endsLater) end(err error) { c.mu.Lock(); c.err = err; c.mu.Unlock() }

func (c *endsLater) Done() <-chan struct{} { return nil }

func (c *endsLater) Err() error { c.mu.Lock(); defer c.mu.Unlock(); return c.err }
