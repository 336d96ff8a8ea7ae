package observed

// transportChecks: the HTTP headers, batches and SSE streams.
func transportChecks() []Check { return nil }

// flowChecks: cancellation, progress and capabilities.
func flowChecks() []Check { return nil }
