package suites

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/suites/conform"
)

// Helpers, no checks: _meta keys, their names and prefixes, and the serverInfo results carry.

// The _meta keys and values of the stateless revision that these checks read or send.
const (
	metaServerInfo = "io.modelcontextprotocol/serverInfo"
	unknownMetaKey = "com.example/x"
)

// Core resultType values; extensions advertised in capabilities may add more.
var coreResultTypes = []string{"complete", "input_required"}

// A _meta key: an optional prefix (dot-separated labels, then a slash) and a name.
var (
	metaLabel    = `[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?`
	metaPrefixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^` + metaLabel + `(?:\.` + metaLabel + `)*/$`) })
	metaNameRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`) })
)

// extensionIDs are the keys of the discovered capabilities.extensions.
func extensionIDs(t *conform.T) []string {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(t.S.InitResult()["capabilities"], &caps)
	ids := make([]string, 0, len(caps.Extensions))
	for id := range caps.Extensions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// serverInfoProblem says what is wrong with a result's _meta serverInfo, or "".
func serverInfoProblem(obj map[string]json.RawMessage) string {
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(obj["_meta"], &meta)
	raw, ok := meta[metaServerInfo]
	if !ok {
		return "has no _meta " + metaServerInfo
	}
	var info map[string]json.RawMessage
	if json.Unmarshal(raw, &info) != nil {
		return fmt.Sprintf("has _meta %s that is not an object: %s", metaServerInfo, clip(string(raw), 120))
	}
	for _, field := range []string{"name", "version"} {
		if _, ok := jsonString(info[field]); !ok {
			return fmt.Sprintf("has _meta %s without a string %s: %s", metaServerInfo, field, clip(string(raw), 120))
		}
	}
	return ""
}

// statelessMeta is the required _meta of a request at version, with extra keys set (nil values
// remove a key).
func statelessMeta(version string, extra map[string]any) map[string]any {
	meta := map[string]any{
		harness.MetaProtocolVersion:    version,
		harness.MetaClientCapabilities: map[string]any{},
		harness.MetaClientInfo:         harness.ClientInfo,
	}
	for k, v := range extra {
		if v == nil {
			delete(meta, k)
		} else {
			meta[k] = v
		}
	}
	return meta
}

// metaKeyProblem says what is wrong with a _meta key's prefix (part "prefix") or name, or "".
func metaKeyProblem(key, part string) string {
	prefix, name := "", key
	if i := strings.LastIndex(key, "/"); i >= 0 {
		prefix, name = key[:i+1], key[i+1:]
	}
	switch {
	case part == "prefix" && prefix != "" && !metaPrefixRE().MatchString(prefix):
		return fmt.Sprintf("the prefix %q is not dot-separated labels that start with a letter and end with a letter or digit, then a slash", prefix)
	case part == "name" && !metaNameRE().MatchString(name):
		return fmt.Sprintf("the name %q does not begin and end with a letter or digit (or holds characters other than letters, digits, '-', '_', '.')", name)
	}
	return ""
}

// metaKeys walks v and calls found for every member of every _meta object in it.
func metaKeys(v any, found func(key string, value any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			if meta, ok := child.(map[string]any); ok && k == "_meta" {
				for mk, mv := range meta {
					found(mk, mv)
				}
			}
			metaKeys(child, found)
		}
	case []any:
		for _, child := range x {
			metaKeys(child, found)
		}
	}
}
