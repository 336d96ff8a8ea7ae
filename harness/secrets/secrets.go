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
	"slices"
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
	secrets []secret // longest first: a secret that holds another is replaced whole
	// Indexes into secrets by how a form of them can begin, so that a position of the text is
	// tried only against the secrets that could start there.
	byRune map[rune][]int // first character, however it is written (JSON forms)
	byByte [256][]int     // first byte, as it is, %XX or "+" (percent forms)
	byLit  [256][]int     // first byte of a base64 form
}

// secret is one value and its fixed encodings (base64); the escape and percent forms are
// matched unit by unit (matchJSON, matchPercent), which no list of strings could enumerate.
type secret struct {
	runes    []rune
	bytes    string
	literals []string
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
	r := &Redactor{byRune: map[rune][]int{}}
	if len(keep) == 0 {
		return r
	}
	sort.SliceStable(keep, func(i, j int) bool { return len(keep[i]) > len(keep[j]) })
	for i, v := range keep {
		sec := secret{runes: []rune(v), bytes: v}
		r.byRune[sec.runes[0]] = append(r.byRune[sec.runes[0]], i)
		r.byByte[v[0]] = append(r.byByte[v[0]], i)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			l := enc.EncodeToString([]byte(v))
			sec.literals = append(sec.literals, l)
			if !slices.Contains(r.byLit[l[0]], i) {
				r.byLit[l[0]] = append(r.byLit[l[0]], i)
			}
		}
		r.secrets = append(r.secrets, sec)
	}
	return r
}

// Redact replaces every form of every secret in s with Redacted.
func (r *Redactor) Redact(s string) string {
	if r.Empty() || s == "" {
		return s
	}
	var b strings.Builder
	last := 0
	var cand []int
	for i := 0; i < len(s); {
		cand = r.candidates(s, i, cand[:0])
		n := 0
		for _, k := range cand {
			if n = r.secrets[k].matchAt(s, i); n > 0 {
				break
			}
		}
		if n == 0 {
			i++
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(Redacted)
		i += n
		last = i
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// candidates appends to out, longest first, the secrets a form of which could begin at s[i:].
func (r *Redactor) candidates(s string, i int, out []int) []int {
	c, _ := utf8.DecodeRuneInString(s[i:])
	out = append(out, r.byRune[c]...)
	if s[i] == '\\' {
		if u, n := unescapeAt(s, i); n > 0 {
			out = append(out, r.byRune[u]...)
		}
	}
	out = append(out, r.byByte[s[i]]...)
	switch {
	case s[i] == '%' && i+3 <= len(s):
		if h := hexByte(s[i+1 : i+3]); h >= 0 {
			out = append(out, r.byByte[h]...)
		}
	case s[i] == '+':
		out = append(out, r.byByte[' ']...)
	}
	out = append(out, r.byLit[s[i]]...)
	if len(out) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// unescapeAt decodes the JSON escape at s[i:] (a short escape, \uXXXX or a surrogate pair of
// them): the character and the escape's length, or 0 when there is none.
func unescapeAt(s string, i int) (rune, int) {
	if i+1 >= len(s) {
		return 0, 0
	}
	if c, ok := shortUnescapes[s[i+1]]; ok {
		return c, 2
	}
	u, ok := uEscape(s, i)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(u) {
		if lo, ok := uEscape(s, i+6); ok {
			return utf16.DecodeRune(u, lo), 12
		}
	}
	return u, 6
}

// matchAt is the length of a form of sec at s[i:], 0 for none.
func (sec *secret) matchAt(s string, i int) int {
	if n := matchJSON(s, i, sec.runes); n > 0 {
		return n
	}
	if n := matchPercent(s, i, sec.bytes); n > 0 {
		return n
	}
	for _, l := range sec.literals {
		if strings.HasPrefix(s[i:], l) {
			return len(l)
		}
	}
	return 0
}

// Empty reports whether the redactor has nothing to redact.
func (r *Redactor) Empty() bool { return r == nil || len(r.secrets) == 0 }

// matchJSON is the length of v at s[i:] as any JSON encoder may write it between quotes (or as
// plain text): each character as it is, by its short escape, or as \uXXXX (a surrogate pair
// beyond the BMP) in either case of hex; 0 when v is not there.
func matchJSON(s string, i int, v []rune) int {
	if len(v) == 0 {
		return 0
	}
	start := i
	var rec func(i, k int) int
	rec = func(i, k int) int {
		if k == len(v) {
			return i
		}
		c := v[k]
		if i >= len(s) {
			return -1
		}
		if got, size := utf8.DecodeRuneInString(s[i:]); got == c && (c != utf8.RuneError || size > 1) {
			if end := rec(i+size, k+1); end >= 0 {
				return end
			}
		}
		if esc, ok := shortEscapes[c]; ok && strings.HasPrefix(s[i:], esc) {
			if end := rec(i+len(esc), k+1); end >= 0 {
				return end
			}
		}
		if u, n := unescapeAt(s, i); n > 0 && u == c && s[i+1] == 'u' {
			return rec(i+n, k+1)
		}
		return -1
	}
	end := rec(i, 0)
	if end < 0 {
		return 0
	}
	return end - start
}

// uEscape decodes the \uXXXX at s[i:], hex in any case.
func uEscape(s string, i int) (rune, bool) {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
	return rune(n), err == nil
}

// shortEscapes are JSON's two-character escapes, and shortUnescapes the same read back.
var (
	shortEscapes   = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
	shortUnescapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
)

// matchPercent is the length of v at s[i:] percent-encoded as in a URL path, query or form: each
// byte as it is or as %XX in either case, a space also as "+"; 0 when v is not there, or is
// there only as it is (matchJSON finds that).
func matchPercent(s string, i int, v string) int {
	start, encoded := i, false
	for k := 0; k < len(v); k++ {
		c := v[k]
		switch {
		case i+3 <= len(s) && s[i] == '%' && hexByte(s[i+1:i+3]) == int(c):
			i += 3
			encoded = true
		case c == ' ' && i < len(s) && s[i] == '+':
			i++
			encoded = true
		case i < len(s) && s[i] == c:
			i++
		default:
			return 0
		}
	}
	if !encoded {
		return 0
	}
	return i - start
}

// hexByte is the value of two hex digits in either case, -1 when they are not.
func hexByte(h string) int {
	n, err := strconv.ParseUint(h, 16, 8)
	if err != nil {
		return -1
	}
	return int(n)
}
