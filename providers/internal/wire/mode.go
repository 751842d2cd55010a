package wire

import (
	"errors"
	"net/http"
	"strings"

	"github.com/enforcer-go/enforcer/agent"
	"github.com/enforcer-go/enforcer/providers/native"
)

// Unsupported marks err, when it is an *agent.ProviderError for a 400 or
// 422, with the output mode the provider refused the request for
// (agent.ProviderError.Unsupported): agent.ModeNative when text (the
// provider's message, and the parameter it named) mentions one of
// native's words, else agent.ModeTool for one of tools'. Matching is
// case-insensitive. Any other err is returned as it is.
func Unsupported(err error, text string, native, tools []string) error {
	var pe *agent.ProviderError
	if !errors.As(err, &pe) || pe.HTTPStatus != http.StatusBadRequest && pe.HTTPStatus != http.StatusUnprocessableEntity {
		return err
	}
	text = strings.ToLower(text)
	mentions := func(words []string) bool {
		for _, w := range words {
			if strings.Contains(text, w) {
				return true
			}
		}
		return false
	}
	switch {
	case mentions(native):
		pe.Unsupported = agent.ModeNative
	case mentions(tools):
		pe.Unsupported = agent.ModeTool
	}
	return err
}

// Modes is what an adapter says of its model's output modes for a
// contract (agent.ModeReporter), from the contract's lowering for its
// native mode: l is nil when no native mode is configured (option names
// what configures one), err is the lowering's failure. Native when the
// lowering is exact (native.Report.Exact), Strict when it is sent
// strict; tools always, as every adapter here sends them.
func Modes(l *native.Lowering, err error, option string) agent.Modes {
	switch {
	case err != nil:
		return agent.Modes{Tools: true, Why: err.Error()}
	case l == nil:
		return agent.Modes{Tools: true, Why: "no native mode configured (" + option + ")"}
	}
	exact, why := l.Report.Exact()
	return agent.Modes{Native: exact, Strict: l.Strict(), Tools: true, Why: why}
}
