package fantasy_test

import (
	"testing"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/openai"
)

// fantasyOpenAI is fantasy's own OpenAI provider's language model (its
// chat completions client, openai-go underneath) pointed at url: the
// client a fantasy program runs. mode, when not "", is its object mode.
func fantasyOpenAI(t testing.TB, url string, mode fantasy.ObjectMode) fantasy.LanguageModel {
	t.Helper()
	opts := []openai.Option{openai.WithBaseURL(url), openai.WithAPIKey("k")}
	if mode != "" {
		opts = append(opts, openai.WithObjectMode(mode))
	}
	p, err := openai.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := p.LanguageModel(t.Context(), "m")
	if err != nil {
		t.Fatal(err)
	}
	return lm
}
