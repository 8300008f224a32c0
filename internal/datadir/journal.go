package datadir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

const (
	// StagingName is the directory a refresh stages its files in.
	StagingName = ".refresh-staging"
	// JournalName is the commit journal: while it exists, a refresh is
	// moving the staged files into place (or was killed doing so).
	JournalName = ".refresh-commit.json"
	// PreviousName, inside the staging directory, holds a hard link (or a
	// copy) of every file a commit replaces, for rolling back.
	PreviousName = ".previous"
)

// Journal lists the staged files a commit moves into the data directory,
// and which of them had no previous file.
type Journal struct {
	Files []string `json:"files"`
	New   []string `json:"new,omitempty"`
}

// JournalPath is the commit journal of a data directory: while it exists,
// a refresh is moving files into place (or was killed doing so) and the
// directory may hold a mix of old and new files until it is recovered.
func JournalPath(dataDir string) string { return filepath.Join(dataDir, JournalName) }

// ReadJournal reads dataDir's commit journal; ok is false when none is
// pending.
func ReadJournal(dataDir string) (j Journal, ok bool, err error) {
	b, err := os.ReadFile(JournalPath(dataDir))
	if errors.Is(err, os.ErrNotExist) {
		return Journal{}, false, nil
	}
	if err != nil {
		return Journal{}, false, err
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return Journal{}, true, fmt.Errorf("the commit journal %s is damaged: %w", JournalPath(dataDir), err)
	}
	return j, true, nil
}

// Current is the file a reader opens for path, without writing: path
// itself, unless a commit journal beside it is pending and lists it
// while its new copy is still staged. A written journal means the commit
// is decided (the new set wins), so the staged copy is the whole new
// file where path may still be the old one; pending says a commit was
// found in progress.
func Current(path string) (file string, pending bool, err error) {
	dir := filepath.Dir(path)
	j, ok, err := ReadJournal(dir)
	if err != nil || !ok {
		return path, ok, err
	}
	rel := filepath.Base(path)
	for _, f := range j.Files {
		if filepath.Clean(f) != rel {
			continue
		}
		staged := filepath.Join(dir, StagingName, rel)
		if st, err := os.Stat(staged); err == nil && st.Mode().IsRegular() {
			return staged, true, nil
		}
	}
	return path, true, nil
}
