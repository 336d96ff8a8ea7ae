package main

import (
	"github.com/mcpspec/mcpspec/harness"
	"github.com/mcpspec/mcpspec/harness/schema"
)

// newValidator returns the run's schema validator: each schema is compiled once, on first use.
func newValidator() harness.Validator { return schema.New() }
