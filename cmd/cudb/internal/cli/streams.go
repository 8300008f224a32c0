package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"
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
		Now:    time.Now, Getenv: os.Getenv}
}

// TestStreams returns streams backed by buffers.
func TestStreams(stdin string) (*Streams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &Streams{In: strings.NewReader(stdin), Out: out, ErrOut: errOut}, out, errOut
}

// WriteJSON writes v as indented JSON with a trailing newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Table writes rows for people (aligned, with a header) on a terminal and
// for programs (tab-separated, no header) otherwise.
type Table struct {
	Header []string
	Rows   [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Render writes the table.
func (t *Table) Render(s *Streams) error {
	if !s.TTY {
		for _, r := range t.Rows {
			clean := make([]string, len(r))
			for i, c := range r {
				clean[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
			}
			if _, err := fmt.Fprintln(s.Out, strings.Join(clean, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(upper(t.Header), "\t"))
	for _, r := range t.Rows {
		cells := make([]string, len(r))
		for i, c := range r {
			if c == "" {
				c = "-"
			}
			cells[i] = c
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func upper(h []string) []string {
	out := make([]string, len(h))
	for i, s := range h {
		out[i] = strings.ToUpper(s)
	}
	return out
}
