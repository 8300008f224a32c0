package store

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/scraper"
	"github.com/cudb/cudb/scraper/all"
	"github.com/cudb/cudb/scraper/fetch"
)

// What a refresh reads, reports and writes.
type (
	// Source is one scraped source.
	Source = scraper.Source
	// Event is one step of a source during a refresh.
	Event = scraper.Event
	// Report is a refresh's outcome (`cudb refresh --json`).
	Report = scraper.Report
	// Manifest is what a build wrote (`cudb db build --json`).
	Manifest = scraper.Manifest
)

// The stages that end a source's refresh.
const (
	StageDone   = scraper.StageDone
	StageFailed = scraper.StageFailed
)

// Sources is every source refresh and build know, in precedence order.
func Sources() []Source { return all.Sources() }

// Family names the kind of source s is (its upstream's family).
func Family(s Source) string { return scraper.Family(s) }

// Select returns the sources of all named by names, in the order named,
// or all of them when names is empty; an unknown name is a usage error
// that lists the known ones.
func Select(all []Source, names []string) ([]Source, error) {
	if len(names) == 0 {
		return all, nil
	}
	var out []Source
	for _, n := range names {
		var found Source
		for _, s := range all {
			if s.Name() == n {
				found = s
			}
		}
		if found == nil {
			known := make([]string, 0, len(all))
			for _, s := range all {
				known = append(known, s.Name())
			}
			return nil, errs.Errorf(errs.CodeUsage, "unknown source %s (sources: %s)", errs.Quote(n), strings.Join(known, ", ")).WithHint("cudb refresh --help")
		}
		out = append(out, found)
	}
	return out, nil
}

// Build normalizes every snapshot under dataDir with sources and
// replaces its cudb.db and manifest.json as one set (scraper.Build: it
// takes the refresh lock and recovers a pending journal first).
func Build(ctx context.Context, dataDir string, sources []Source) (*Manifest, error) {
	return scraper.Build(ctx, dataDir, sources)
}

// RefreshOptions say what a refresh reads, checks and writes.
type RefreshOptions struct {
	// DataDir is the data directory written.
	DataDir string
	// All is every source in precedence order; Sources those scraped
	// (nil: All).
	All, Sources []Source
	// Snapshots, when set, is a folder of source snapshots read instead
	// of the network.
	Snapshots string
	// BaseURL sends every live request to this scheme://host instead.
	BaseURL string
	// Version is cudb's, for the User-Agent of live requests.
	Version     string
	AllowShrink bool
	DryRun      bool
	// Log hears the fetcher's notes (a retry, a cached answer) and a
	// cache that could not be saved.
	Log func(format string, args ...any)
	// Progress hears each source's stages.
	Progress func(Event)
	// Hook hears each step of a refresh that writes (the kill test).
	Hook func(step string)
}

// Refresh scrapes the chosen sources (live, through the data directory's
// fetch cache, or from Snapshots), checks them and rebuilds the data
// (scraper.Refresh). A live refresh that wrote without error saves the
// fetch cache beside the data.
func Refresh(ctx context.Context, o RefreshOptions) (*Report, error) {
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ro := scraper.RefreshOptions{
		DataDir:  o.DataDir,
		Sources:  o.Sources,
		All:      o.All,
		Checks:   scraper.CheckOptions{AllowShrink: o.AllowShrink},
		DryRun:   o.DryRun,
		Hook:     o.Hook,
		Progress: o.Progress,
	}
	var cache *fetch.FileCache
	if o.Snapshots != "" {
		ro.Input.Snapshots = o.Snapshots
	} else {
		cache = fetch.LoadFileCache(filepath.Join(o.DataDir, ".fetch-cache.json"))
		ro.Input.Fetcher = &fetch.Client{
			HTTP:      &http.Client{},
			BaseURL:   o.BaseURL,
			UserAgent: fetch.UserAgent(o.Version),
			Cache:     cache,
			Log:       logf,
		}
	}
	rep, err := scraper.Refresh(ctx, ro)
	if cache != nil && !o.DryRun && rep != nil && rep.Error == "" {
		if serr := cache.Save(); serr != nil {
			logf("warning: %v", serr)
		}
	}
	return rep, err
}

// WriteText writes a refresh's diff as text.
func WriteText(w io.Writer, rep *Report) error { return scraper.WriteText(w, rep.Diffs()) }

// WriteMarkdown writes a refresh's diff and failures as markdown (a
// pull-request body).
func WriteMarkdown(w io.Writer, rep *Report) error {
	return scraper.WriteMarkdown(w, rep.Diffs(), rep.FailedReasons())
}
