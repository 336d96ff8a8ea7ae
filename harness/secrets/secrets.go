// Package secrets finds a secret value in the text of reports, transcripts and the console in
// every form a target may echo it: as it is, escaped between JSON quotes by any encoder (Go's,
// Python's \u00e9, .NET's \u002B, every character as \uXXXX, either hex case, mixed),
// percent-encoded (URL path, query or form, either hex case) and base64-encoded.
//
// Values too short or too common to be secrets (under MinLen characters, JSON literals,
// numbers) are never redacted: blanking every "true" of the evidence because of
// --env DEBUG=true would garble reports without hiding anything.
//
// Redaction is for what people read; the recording the checks judge is never redacted.
package secrets

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Redacted replaces every secret found.
const Redacted = "[REDACTED]"

// MinLen is the fewest characters a value needs to be treated as a secret.
const MinLen = 6

// Redactor replaces secrets in text. The zero value and nil redact nothing.
type Redactor struct {
	re *regexp.Regexp
}

// IsSecret reports whether v is redacted at all: long enough, and not a JSON literal or number.
func IsSecret(v string) bool {
	if utf8.RuneCountInString(v) < MinLen {
		return false
	}
	switch v {
	case "true", "false", "null":
		return false
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return false
	}
	return true
}

// New builds a redactor for values; those that are not secrets (IsSecret) are left out.
func New(values []string) *Redactor {
	seen := map[string]bool{}
	var keep []string
	for _, v := range values {
		if IsSecret(v) && !seen[v] {
			seen[v] = true
			keep = append(keep, v)
		}
	}
	if len(keep) == 0 {
		return &Redactor{}
	}
	// Longest first: a secret that holds another is replaced whole.
	sort.SliceStable(keep, func(i, j int) bool { return len(keep[i]) > len(keep[j]) })
	var alts []string
	for _, v := range keep {
		alts = append(alts, jsonPattern(v), percentPattern(v))
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			alts = append(alts, regexp.QuoteMeta(enc.EncodeToString([]byte(v))))
		}
	}
	return &Redactor{re: regexp.MustCompile(strings.Join(alts, "|"))}
}

// Redact replaces every form of every secret in s with Redacted.
func (r *Redactor) Redact(s string) string {
	if r == nil || r.re == nil || s == "" {
		return s
	}
	return r.re.ReplaceAllLiteralString(s, Redacted)
}

// Empty reports whether the redactor has nothing to redact.
func (r *Redactor) Empty() bool { return r == nil || r.re == nil }

// jsonPattern matches v between JSON quotes as any encoder may write it: each character as it
// is (plain text too), as a \uXXXX escape (a surrogate pair beyond the BMP) in either case, or by its short escape.
func jsonPattern(v string) string {
	var b strings.Builder
	for _, r := range v {
		forms := []string{regexp.QuoteMeta(string(r))} // as it is: plain text, or an encoder that leaves it
		if short, ok := shortEscapes[r]; ok {
			forms = append(forms, regexp.QuoteMeta(short))
		}
		var units []uint16
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			units = []uint16{uint16(r1), uint16(r2)}
		} else {
			units = []uint16{uint16(r)}
		}
		var esc strings.Builder
		for _, u := range units {
			esc.WriteString(`\\u`)
			esc.WriteString(anyCaseHex(fmt.Sprintf("%04x", u)))
		}
		forms = append(forms, esc.String())
		b.WriteString("(?:" + strings.Join(forms, "|") + ")")
	}
	return b.String()
}

// shortEscapes are JSON's two-character escapes.
var shortEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

// percentPattern matches v percent-encoded in a URL path, query or form: each byte as it is
// or as %XX in either case, a space also as "+".
func percentPattern(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		forms := []string{`%` + anyCaseHex(fmt.Sprintf("%02x", c))}
		if c < utf8.RuneSelf {
			forms = append(forms, regexp.QuoteMeta(string(rune(c))))
		}
		if c == ' ' {
			forms = append(forms, `\+`)
		}
		b.WriteString("(?:" + strings.Join(forms, "|") + ")")
	}
	return b.String()
}

// anyCaseHex turns the hex digits a-f of h into classes matching either case.
func anyCaseHex(h string) string {
	var b strings.Builder
	for _, c := range h {
		if c >= 'a' && c <= 'f' {
			fmt.Fprintf(&b, "[%c%c]", c, c-'a'+'A')
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}
