package clientsuite

import (
	"path/filepath"
	"testing"
)

// TestRegisterRecordsTheFile: each client check knows the file that registered it, as a server
// check does, in this package's directory.
func TestRegisterRecordsTheFile(t *testing.T) {
	checks, err := Checks()
	if err != nil {
		t.Fatal(err)
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if filepath.Dir(c.File) != here || filepath.Ext(c.File) != ".go" {
			t.Errorf("%s: registered in %q, want a file of %s", c.ID, c.File, here)
		}
	}
}
