package reports

import (
	"cmp"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// messageWidth is how many characters of a message one-line listings show.
const messageWidth = 160

// oneLine reduces server-influenced text to a single printable line of at
// most width characters: control characters are made visible, newlines end it.
func oneLine(s string, width int) string {
	first, rest, cut := strings.Cut(strings.TrimSpace(s), "\n")
	first = visibleControls(strings.TrimRight(first, "\r"))
	truncated := cut && strings.TrimSpace(rest) != ""
	if utf8.RuneCountInString(first) > width {
		first = string([]rune(first)[:width])
		truncated = true
	}
	if truncated {
		first += " …"
	}
	return first
}

// visibleControls replaces control characters (which could drive a terminal
// or break a table) and bidi overrides (which could reorder what a reader
// sees) with visible escapes; tabs become spaces.
func visibleControls(s string) string { return escapeControls(s, false) }

// escapeControls makes invalid UTF-8, control characters and bidi overrides
// visible as \xNN or \uNNNN escapes. With keepLayout, newlines, carriage
// returns and tabs stay as they are; otherwise a tab becomes a space.
func escapeControls(s string, keepLayout bool) string {
	if !changedByEscaping(s, keepLayout) {
		return s
	}
	return rewriteControls(s, keepLayout)
}

// rewriteControls is escapeControls' rewrite, rune by rune.
func rewriteControls(s string, keepLayout bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && width == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLayout && (r == '\n' || r == '\r' || r == '\t'):
			b.WriteRune(r)
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += width
	}
	return b.String()
}

// key identifies a result across runs and in baselines. Side tells apart the two verdicts an
// observed requirement may have (mcpspec judge), Scenario the rows of a client check that judges
// several scenarios' recordings (mcpspec client); a baseline entry has neither and covers all.
type key struct{ ID, Version, Transport, Side, Scenario string }

func resultKey(r Result) key { return key{r.ID, r.Version, r.Transport, r.Side, r.Scenario} }

// compare orders keys by ID, then revision, then transport, then side, then scenario.
func (k key) compare(o key) int {
	return cmp.Or(cmp.Compare(k.ID, o.ID), cmp.Compare(k.Version, o.Version), cmp.Compare(k.Transport, o.Transport),
		cmp.Compare(k.Side, o.Side), cmp.Compare(k.Scenario, o.Scenario))
}

// exchangeHeader is the first line of one exchange in textual evidence,
// e.g. "#3 +120ms recv stdout [HTTP 400 application/json]".
func exchangeHeader(e Exchange) string {
	h := fmt.Sprintf("#%d +%dms %s %s", e.Seq, e.AtMs, e.Direction, e.Channel)
	if e.Meta != "" {
		h += " [" + e.Meta + "]"
	}
	return h
}

// evidenceText renders evidence as plain text: a header line per exchange,
// then its body exactly as recorded.
func evidenceText(evidence []Exchange) string {
	var b strings.Builder
	for _, e := range evidence {
		b.WriteString(exchangeHeader(e))
		b.WriteByte('\n')
		if e.Body != "" {
			b.WriteString(e.Body)
			if !strings.HasSuffix(e.Body, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// seconds formats milliseconds as seconds with millisecond precision.
func seconds(ms int64) string {
	return fmt.Sprintf("%.3f", float64(ms)/1000)
}

// changedByEscaping reports whether escapeControls would change s. Evidence is mostly ASCII
// JSON, often over several lines: bytes below utf8.RuneSelf are judged as bytes, and layout
// that keepLayout keeps does not send s through the rune-by-rune rewrite (make run: ~40 ms).
func changedByEscaping(s string, keepLayout bool) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(keepLayout && (c == '\n' || c == '\r' || c == '\t')) {
				return true
			}
			i++
			continue
		}
		r, width := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && width == 1) || needsEscape(r) {
			return true
		}
		i += width
	}
	return false
}

func needsEscape(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
}
