package errs

import (
	"fmt"
	"unicode/utf8"
)

// MaxEcho bounds how much of a user's input an error message repeats.
const MaxEcho = 64

// Quote quotes s for an error message, cutting it past MaxEcho bytes and
// saying how long it was: a 5,000-digit argument is named, not echoed
// back whole.
func Quote(s string) string {
	if len(s) <= MaxEcho {
		return fmt.Sprintf("%q", s)
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(s))
}
