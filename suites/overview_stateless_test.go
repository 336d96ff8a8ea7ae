package suites

import "testing"

// TestPageIdentity: a page is the items a cursor selects, named by their identity; the same
// items with another description are the same page (their change is PAGE-STABLE's matter).
func TestPageIdentity(t *testing.T) {
	page := func(desc string) string {
		return canonical([]map[string]any{{"name": "echo", "description": desc}, {"uri": "file:///a", "name": "a"}, {"uriTemplate": "x://{y}"}})
	}
	if pageIdentity(page("one")) != pageIdentity(page("two")) {
		t.Error("the same items with other descriptions read as another page")
	}
	other := canonical([]map[string]any{{"name": "add"}, {"uri": "file:///a", "name": "a"}, {"uriTemplate": "x://{y}"}})
	if pageIdentity(page("one")) == pageIdentity(other) {
		t.Error("a page with another tool reads as the same page")
	}
	if pageIdentity(canonical([]any{})) == pageIdentity(canonical([]map[string]any{{"name": "echo"}})) {
		t.Error("an empty page reads as a page with an item")
	}
}
