package cli

import "github.com/cudb/cudb/usecase/present"

// Table is the presenters' table: aligned on a terminal, tab-separated
// for programs (present.Table).
type Table = present.Table

// Tone is a status colour (the presenters' own).
type Tone = present.Tone

// The tones.
const (
	None = present.None
	Good = present.Good
	Warn = present.Warn
	Bad  = present.Bad
)

// Term is what the presenters need to know of standard output.
func (s *Streams) Term() present.Terminal {
	return present.Terminal{Out: s.Out, TTY: s.TTY, Width: s.Width, Colour: s.Colour()}
}

// Paint wraps text in tone's colour when standard output may show colour.
func (s *Streams) Paint(tone Tone, text string) string { return s.Term().Paint(tone, text) }
