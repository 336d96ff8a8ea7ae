package secrets

import (
	"strings"
	"testing"
)

func TestRedactFindsEveryEncoding(t *testing.T) {
	const secret = `Éa+b<c>"d\😀 s`
	r := New([]string{secret})
	forms := map[string]string{
		"raw":                 secret,
		"go json":             `\u00c9a+b\u003cc\u003e\"d\\😀 s`,
		"python ensure_ascii": `\u00c9a+b<c>\"d\\\ud83d\ude00 s`,
		".NET upper hex":      `\u00C9a\u002Bb\u003Cc\u003E\u0022d\u005C\uD83D\uDE00\u0020s`,
		"every char lower":    `\u00c9\u0061\u002b\u0062\u003c\u0063\u003e\u0022\u0064\u005c\ud83d\ude00\u0020\u0073`,
		"mixed case":          `\u00C9\u0061+b<c>\"d\\\uD83D\ude00 s`,
		"query escape":        `%C3%89a%2Bb%3Cc%3E%22d%5C%F0%9F%98%80+s`,
		"path escape lower":   `%c3%89a%2bb%3cc%3e%22d%5c%f0%9f%98%80%20s`,
		"base64":              "w4lhK2I8Yz4iZFzwn5iAIHM=",
		"base64 raw url":      "w4lhK2I8Yz4iZFzwn5iAIHM",
	}
	for name, form := range forms {
		got := r.Redact(`{"before":"x` + form + `y"}`)
		if got != `{"before":"x`+Redacted+`y"}` {
			t.Errorf("%s: %q redacted to %q", name, form, got)
		}
	}
}

func TestRedactLeavesNonSecretsAlone(t *testing.T) {
	r := New([]string{"true", "false", "null", "123456", "1e10", "short", ""})
	if !r.Empty() {
		t.Fatal("literals, numbers and values under MinLen must not become secrets")
	}
	text := `{"ok":true,"n":123456,"v":null,"s":"short"}`
	if got := r.Redact(text); got != text {
		t.Errorf("redacted %q to %q", text, got)
	}
}

func TestRedactLongestFirst(t *testing.T) {
	r := New([]string{"abcdef", "abcdefghij"})
	if got := r.Redact("abcdefghij abcdef"); got != Redacted+" "+Redacted {
		t.Errorf("got %q", got)
	}
	if strings.Contains(New(nil).Redact("abcdef"), Redacted) {
		t.Error("an empty redactor redacted")
	}
}

func TestRedactFindsFormsThatBeginEscaped(t *testing.T) {
	r := New([]string{"😀secret", `"quoted`, "%percent"})
	for _, form := range []string{`\uD83D\ude00secret`, `\ud83d\uDE00\u0073ecret`, `\"quoted`, `\u0022quoted`, `%25percent`, `%percent`} {
		if got := r.Redact("<" + form + ">"); got != "<"+Redacted+">" {
			t.Errorf("%q redacted to %q", form, got)
		}
	}
}
