package main

import (
	"errors"
	"flag"
	"fmt"
	neturl "net/url"
	"strings"
)

// targetFlagNames are the flags of `mcpspec run` that name the server under test. Without any of
// them the bundled reference runs, so each one given must say something.
var targetFlagNames = []string{"stdio", "url", "sse", "http-cmd"}

// onceValue counts how often a flag was given: a second --stdio would silently replace the first.
type onceValue struct {
	flag.Value
	given []string
}

func (o *onceValue) Set(v string) error {
	o.given = append(o.given, v)
	return o.Value.Set(v)
}

// String is also called on a zero onceValue (flag.PrintDefaults does, to find zero defaults).
func (o *onceValue) String() string {
	if o == nil || o.Value == nil {
		return ""
	}
	return o.Value.String()
}

// Get keeps the wrapped value readable as a string by checkGiven.
func (o *onceValue) Get() any { return o.Value.(flag.Getter).Get() }

// onlyOnce makes each named flag of fs countable by checkGiven. Call it before parsing.
func onlyOnce(fs *flag.FlagSet, names ...string) {
	for _, name := range names {
		f := fs.Lookup(name)
		f.Value = &onceValue{Value: f.Value}
	}
}

// checkGiven rejects what parsing accepts but no user means: a string flag given an empty or
// blank value (typically an unset variable, "--stdio "$SERVER"") and an onlyOnce flag given twice.
func checkGiven(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil {
			return
		}
		if o, ok := f.Value.(*onceValue); ok && len(o.given) > 1 {
			err = usageErrorf("%s: --%s given %d times (%s): give it once", fs.Name(), f.Name, len(o.given), quoteAll(o.given))
			return
		}
		if g, ok := f.Value.(flag.Getter); ok {
			if s, ok := g.Get().(string); ok && strings.TrimSpace(s) == "" {
				err = usageErrorf("%s: --%s is empty: give it a value or leave it out (an unset variable?)", fs.Name(), f.Name)
			}
		}
	})
	return err
}

// given reports whether any of the named flags was set on the command line.
func given(fs *flag.FlagSet, names ...string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			found = found || f.Name == n
		}
	})
	return found
}

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// checkHTTPURL accepts an absolute http:// or https:// URL with a host.
func checkHTTPURL(s string) error {
	u, err := neturl.Parse(s)
	if err != nil {
		return errors.New("want an http:// or https:// URL with a host")
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return errors.New("want an http:// or https:// URL with a host")
	}
	return nil
}
