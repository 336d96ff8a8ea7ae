package probe

import "github.com/mcpspec/mcpspec/harness"

// The scenarios of schemas.go, invalidheaders.go and skillsverify.go, served only when asked
// for by name; what the rest of the probe asks of them.

// scenarioServes reports, for those scenarios, whether the probe serves scenario at revision;
// known is false for any other scenario.
func scenarioServes(scenario, revision string) (serves, known bool) {
	switch {
	case scenario == ScenarioRefNoDeref || scenario == ScenarioSchemaPreservation:
		return servesSchemas(scenario, revision), true
	case scenario == ScenarioInvalidToolHeaders, IsSkillVerify(scenario): // 2026-07-28's rules
		return harness.IsStateless(revision), true
	case IsTasksX(scenario):
		return servesTasksX(revision), true
	}
	return false, false
}

// scenarioTools are the tools those scenarios list; ok is false for any other scenario (the
// skill scenarios list the stateless revision's tools, as sep-2640-client-no-prefetch does).
func (s *server) scenarioTools() (tools []map[string]any, ok bool) {
	switch sc := s.script.Scenario; {
	case sc == ScenarioRefNoDeref || sc == ScenarioSchemaPreservation:
		return schemaTools(sc, s.canaryURL()), true
	case sc == ScenarioInvalidToolHeaders:
		return invalidHeaderTools(), true
	case IsTasksX(sc):
		return taskXTools(), true
	}
	return nil, false
}

// scenarioCall answers a call of those scenarios' tools; ok is false for any other.
func (s *server) scenarioCall(name string, args map[string]any) (text string, ok bool) {
	switch s.script.Scenario {
	case ScenarioRefNoDeref, ScenarioSchemaPreservation:
		return schemaCall(name, args)
	case ScenarioInvalidToolHeaders:
		return invalidHeaderCall(name)
	}
	return "", false
}

// open starts what a scenario serves beside the MCP endpoint (ScenarioRefNoDeref's canary);
// shut stops it.
func (s *server) open() error {
	if s.script.Scenario != ScenarioRefNoDeref {
		return nil
	}
	c, err := startCanary(s.rec)
	if err != nil {
		return err
	}
	s.canary = c
	return nil
}

func (s *server) shut() {
	if s.canary != nil {
		s.canary.close()
	}
}

func (s *server) canaryURL() string {
	if s.canary == nil {
		return "http://127.0.0.1:9" + CanaryPath // listing the names only (toolNames): never served
	}
	return s.canary.URL()
}
