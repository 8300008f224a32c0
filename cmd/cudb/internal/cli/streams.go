package cli

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cudb/cudb/usecase/present"
	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// Streams are the process's standard streams, injected so tests can
// capture output and pretend to be a terminal.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// TTY is true when Out is a terminal: tables are aligned for people;
	// otherwise they are tab-separated for programs.
	TTY bool
	// ErrTTY is true when ErrOut is a terminal: progress redraws one line
	// per task there, and prints plain log lines otherwise.
	ErrTTY bool
	// Now is the clock the data-age notice reads; nil means no clock, and
	// no notice (tests inject one).
	Now func() time.Time
	// Getenv reads the environment; nil reads nothing.
	Getenv func(string) string
	// Width is the terminal's width in columns when Out is a terminal (0:
	// unknown, tables are not cut).
	Width int
}

// env returns the variable key, or "" without an environment.
func (s *Streams) env(key string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(key)
}

// SystemStreams returns the real standard streams.
func SystemStreams() *Streams {
	return &Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		TTY:    isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd()),
		ErrTTY: isatty.IsTerminal(os.Stderr.Fd()) || isatty.IsCygwinTerminal(os.Stderr.Fd()),
		Now:    time.Now, Getenv: os.Getenv, Width: terminalWidth()}
}

// TestStreams returns streams backed by buffers.
func TestStreams(stdin string) (*Streams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &Streams{In: strings.NewReader(stdin), Out: out, ErrOut: errOut}, out, errOut
}

// WriteJSON writes v as indented JSON with a trailing newline.
func WriteJSON(w io.Writer, v any) error { return present.JSON(w, v) }

// terminalWidth is standard output's width, else $COLUMNS, else 0.
func terminalWidth() int {
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		return w
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// Colour reports whether output to a terminal may carry colour: Out is a
// terminal, NO_COLOR (https://no-color.org) is unset or empty and TERM is
// not "dumb".
func (s *Streams) Colour() bool {
	return s.TTY && s.env("NO_COLOR") == "" && s.env("TERM") != "dumb"
}
