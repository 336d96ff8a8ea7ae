package suites

import "testing"

func TestExpandTemplate(t *testing.T) {
	values := map[string]string{"name": "Ada Lovelace", "lang": "en", "path": "a/b"}
	cases := map[string]string{
		"mcpspec://reference/greeting/{name}":      "mcpspec://reference/greeting/Ada%20Lovelace",
		"mcpspec://reference/letter/{lang}/{name}": "mcpspec://reference/letter/en/Ada%20Lovelace",
		"file:///{+path}":                          "file:///a/b",
		"file:///{path}":                           "file:///a%2Fb",
		"x://h{/lang,path}":                        "x://h/en/a%2Fb",
		"x://h/s{?lang,name}":                      "x://h/s?lang=en&name=Ada%20Lovelace",
		"x://h/s{;lang}{.lang}{#path}":             "x://h/s;lang=en.en#a/b",
		"x://h/{lang:2}/{path*}":                   "x://h/en/a%2Fb",
	}
	for tpl, want := range cases {
		if got := expandTemplate(tpl, values); got != want {
			t.Errorf("expandTemplate(%q) = %q, want %q", tpl, got, want)
		}
	}
}
