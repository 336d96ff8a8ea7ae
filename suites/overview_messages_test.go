package suites

import (
	"slices"
	"testing"

	"github.com/mcpspec/mcpspec/harness"
)

func TestReservedPrefix(t *testing.T) {
	for _, c := range []struct {
		rev, key string
		want     bool
	}{
		{harness.Rev20251125, "io.modelcontextprotocol/related-task", true},
		{harness.Rev20251125, "dev.mcp/x", true},
		{harness.Rev20251125, "mcp.dev/x", false}, // the first label does not count from 2025-11-25 on
		{harness.Rev20251125, "com.example/x", false},
		{harness.Rev20251125, "progressToken", false},
		{harness.Rev20250618, "mcp.dev/x", true},
		{harness.Rev20250618, "tools.mcp.com/x", true},
		{harness.Rev20250618, "io.modelcontextprotocol/x", false}, // no label after modelcontextprotocol
		{harness.Rev20260728, "dev.mcp.mcpspec/note", true},
	} {
		if got := reservedPrefix(c.rev, c.key); got != c.want {
			t.Errorf("reservedPrefix(%s, %q) = %v, want %v", c.rev, c.key, got, c.want)
		}
	}
	keys := map[string]bool{"io.modelcontextprotocol/serverInfo": true, "com.example/x": true}
	if k := undefinedReserved(harness.Rev20260728, keys); k != "" {
		t.Errorf("undefinedReserved at 2026-07-28 = %q", k)
	}
	if k := undefinedReserved(harness.Rev20251125, keys); k != "io.modelcontextprotocol/serverInfo" {
		t.Errorf("undefinedReserved at 2025-11-25 = %q", k)
	}
}

func TestTemplateVariables(t *testing.T) {
	for template, want := range map[string][]string{
		"file:///{path}":                   {"path"},
		"mcpspec://a/{lang}/{name}":        {"lang", "name"},
		"https://x/{+base}{?q,page}":       {"base", "q", "page"},
		"https://x/{list*}/{short:3}/none": {"list", "short"},
		"https://x/static":                 nil,
	} {
		if got := templateVariables(template); !slices.Equal(got, want) {
			t.Errorf("templateVariables(%q) = %v, want %v", template, got, want)
		}
	}
}
