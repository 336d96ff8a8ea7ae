package stdio

import "os"

// errDeadline is what a write past its deadline fails with.
var errDeadline = os.ErrDeadlineExceeded
