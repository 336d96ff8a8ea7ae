package registry

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

type check struct {
	ID, Level, File string
}

func newTest(sorted bool, validated *int) *Registry[check] {
	return New(Config[check]{
		Kind: "test check",
		ID:   func(c *check) string { return c.ID },
		Validate: func(c *check) error {
			*validated++
			if c.ID == "" {
				return errors.New("test check: no ID")
			}
			if c.Level == "" {
				c.Level = "MUST" // a default the validation completes
			}
			return nil
		},
		SetFile: func(c *check, file string) { c.File = file },
		Sorted:  sorted,
	})
}

func ids(cs []*check) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return strings.Join(out, ",")
}

func TestRegistryLazy(t *testing.T) {
	n := 0
	r := newTest(false, &n)
	r.Add("a.go", check{ID: "B"}, check{ID: "A"})
	if n != 0 {
		t.Fatalf("Add validated %d checks: validation must wait for the first reader", n)
	}
	if _, ok := r.Lookup("A"); !ok || n != 2 {
		t.Fatalf("Lookup: found %v after %d validations, want true after 2", ok, n)
	}
	r.All()
	if n != 2 {
		t.Errorf("a second read validated again: %d validations", n)
	}
	r.Add("b.go", check{ID: "C"})
	if _, ok := r.Lookup("C"); !ok || n != 3 {
		t.Errorf("a late registration: found %v after %d validations, want true after 3", ok, n)
	}
}

func TestRegistryOrder(t *testing.T) {
	for _, sorted := range []bool{false, true} {
		n := 0
		r := newTest(sorted, &n)
		r.Add("a.go", check{ID: "C"}, check{ID: "A"})
		r.Add("b.go", check{ID: "B"})
		all, err := r.All()
		if err != nil {
			t.Fatal(err)
		}
		want := "C,A,B"
		if sorted {
			want = "A,B,C"
		}
		if got := ids(all); got != want {
			t.Errorf("sorted %v: %s, want %s", sorted, got, want)
		}
	}
}

func TestRegistryCompletesAndRecordsFile(t *testing.T) {
	n := 0
	r := newTest(false, &n)
	r.Add("x/a.go", check{ID: "A"}, check{ID: "B", Level: "SHOULD"})
	a, _ := r.Lookup("A")
	b, _ := r.Lookup("B")
	if a.File != "x/a.go" || a.Level != "MUST" || b.Level != "SHOULD" {
		t.Errorf("A: %+v, B: %+v; want the file recorded and only the missing level defaulted", *a, *b)
	}
}

func TestRegistryDuplicateAndInvalid(t *testing.T) {
	n := 0
	r := newTest(true, &n)
	r.Add("a.go", check{ID: "A", Level: "MUST"}, check{}, check{ID: "A", Level: "SHOULD"}, check{ID: "B"})
	all, err := r.All()
	if got := ids(all); got != "A,B" {
		t.Errorf("valid checks %s, want A,B", got)
	}
	if a, _ := r.Lookup("A"); a.Level != "MUST" {
		t.Errorf("the duplicate replaced the first registration: level %s", a.Level)
	}
	want := "invalid test check registrations: test check: no ID; test check A registered twice"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	if _, err2 := r.All(); err2 == nil || err2.Error() != want {
		t.Errorf("a second read: error %v, want the same", err2)
	}
}

func TestRegistrySettleHook(t *testing.T) {
	calls := 0
	r := New(Config[check]{
		Kind:   "test check",
		ID:     func(c *check) string { return c.ID },
		Settle: func() []error { calls++; return []error{errors.New("extra")} },
	})
	if calls != 0 {
		t.Fatal("the hook ran before the first read")
	}
	_, err := r.All()
	if calls != 1 || err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("after All: %d calls, error %v; want 1 call and its error reported", calls, err)
	}
}

// register stands for a check package's Register: the file recorded is its caller's.
func register(r *Registry[check], cs ...check) { r.Register(cs...) }

func TestRegisterRecordsTheCallersFile(t *testing.T) {
	n := 0
	r := newTest(false, &n)
	_, file, _, _ := runtime.Caller(0)
	register(r, check{ID: "A"})
	if a, _ := r.Lookup("A"); a.File != file {
		t.Errorf("file %q, want %q", a.File, file)
	}
}
