package reports

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// changedByEscaping is a shortcut: it must say exactly when the rewrite changes a text.
func TestChangedByEscapingMatchesTheRewrite(t *testing.T) {
	pieces := []string{"a", "{\"k\":1}", " ", "\n", "\r", "\t", "\x00", "\x1b", "\x7f", "é", "ü",
		"\u0085", "\u061c", "\u200e", "\u202e", "\u2066", "\ufffd", "\xff", "\xc3", "日本"}
	rng := rand.New(rand.NewPCG(1, 2))
	texts := append([]string{""}, pieces...)
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		for _, keep := range []bool{false, true} {
			if got, want := changedByEscaping(s, keep), rewriteControls(s, keep) != s; got != want {
				t.Errorf("changedByEscaping(%q, %v) = %v, want %v", s, keep, got, want)
			}
		}
	}
}
