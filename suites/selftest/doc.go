// Package selftest proves the checks: each passes against the reference server and fails (or
// warns, for a SHOULD) against the reference server with the fault that breaks its requirement.
package selftest
