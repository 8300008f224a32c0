package present

// Tone is a status colour a text presenter asks for; the door decides
// whether colour is shown (a terminal, NO_COLOR).
type Tone int

// The tones.
const (
	None Tone = iota
	Good
	Warn
	Bad
)

// Paint colours text in a tone (or returns it as is).
type Paint func(tone Tone, text string) string

// Plain paints nothing.
func Plain(_ Tone, text string) string { return text }
