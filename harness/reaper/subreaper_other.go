//go:build !linux

package reaper

import "errors"

func becomeSubreaper() error { return errors.New("no child subreaper on this system") }
