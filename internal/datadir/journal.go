package datadir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

const (
	stagingName = ".refresh-staging"
	journalName = ".refresh-commit.json"
	// previousName, inside the staging directory, holds a hard link (or a
	// copy) of every file a commit replaces, for rolling back.
	previousName = ".previous"
	// journalCopy, inside the staging directory, is a second copy of the
	// journal, written before it: a journal damaged from outside is
	// recovered from it.
	journalCopy = ".journal.json"
)

// journal lists the staged files a commit moves into the data directory,
// and which of them had no previous file.
type journal struct {
	Files []string `json:"files"`
	New   []string `json:"new,omitempty"`
}

// JournalPath is the commit journal of a data directory: while it exists,
// a refresh is moving files into place (or was killed doing so) and the
// directory may hold a mix of old and new files until Recover runs.
func JournalPath(dataDir string) string { return filepath.Join(dataDir, journalName) }

// Pending reports whether a commit journal is pending in dataDir: a
// refresh is moving files into place there, or was killed doing so.
// It only looks; RecoverPending settles it.
func Pending(dataDir string) bool {
	_, err := os.Lstat(JournalPath(dataDir))
	return err == nil
}

// StageDir is where a refresh or a build stages the files it will commit
// into dataDir.
func StageDir(dataDir string) string { return filepath.Join(dataDir, stagingName) }

// Commit moves the staged files (under StageDir(dataDir)) into dataDir. It first keeps each file it
// will replace (under the staging directory), then writes the journal:
// once the journal exists the commit is decided, and Recover finishes it
// after a crash; before it exists the staged files are discarded. A move
// that fails (a file that cannot be replaced) rolls every file back, so
// the directory holds the old set again and the error says nothing was
// written.
func Commit(dataDir, stage string, files []string, hook func(string)) error {
	j := journal{Files: files}
	for _, rel := range files {
		cur := filepath.Join(dataDir, rel)
		st, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) {
			j.New = append(j.New, rel)
			continue
		}
		if err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file; refusing to replace it (nothing was written)", cur)
		}
		if err := keep(cur, filepath.Join(stage, previousName, rel)); err != nil {
			return fmt.Errorf("failed to keep the previous %s (nothing was written): %w", rel, err)
		}
	}
	hook("staged")
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(stage, journalCopy), b); err != nil {
		return fmt.Errorf("failed to write the commit journal (nothing was written): %w", err)
	}
	if err := WriteFileAtomic(JournalPath(dataDir), b); err != nil {
		return fmt.Errorf("failed to write the commit journal (nothing was written): %w", err)
	}
	hook("journal")
	if err := settle(dataDir, stage, j, hook); err != nil {
		return err
	}
	hook("committed")
	return nil
}

// keep links (or copies) cur to backup.
func keep(cur, backup string) error {
	if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
		return err
	}
	os.Remove(backup)
	if err := os.Link(cur, backup); err == nil {
		return nil
	}
	in, err := os.Open(cur)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(backup)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// settle rolls the journal's commit forward; when a move fails it rolls
// back instead. Either way the journal goes only once the directory holds
// one whole set; if rolling back fails too, the journal stays for the
// next Recover and the error says so.
func settle(dataDir, stage string, j journal, hook func(string)) error {
	ferr := finish(dataDir, stage, j.Files, hook)
	if ferr == nil {
		return dropJournal(dataDir)
	}
	if rerr := rollback(dataDir, stage, j); rerr != nil {
		return fmt.Errorf("%w; rolling back failed too (%v): the data directory is mid-commit, and the next refresh or `cudb db build` recovers it", ferr, rerr)
	}
	if err := dropJournal(dataDir); err != nil {
		return err
	}
	return fmt.Errorf("%w; every file was restored, nothing was written", ferr)
}

// finish renames every staged file still present into place. Renaming is
// idempotent across crashes: a file already moved is no longer staged.
func finish(dataDir, stage string, files []string, hook func(string)) error {
	for _, rel := range files {
		from, to := filepath.Join(stage, rel), filepath.Join(dataDir, rel)
		if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("failed to move %s into place: %w", rel, err)
		}
		if err := os.Rename(from, to); err != nil {
			return fmt.Errorf("failed to move %s into place: %w", rel, err)
		}
		syncDir(filepath.Dir(to))
		hook("moved " + filepath.ToSlash(rel))
	}
	return nil
}

// rollback puts back the previous file of every journal entry that was
// moved (its staged file is gone) and removes the moved files that had
// none; entries never moved were not touched.
func rollback(dataDir, stage string, j journal) error {
	isNew := map[string]bool{}
	for _, rel := range j.New {
		isNew[rel] = true
	}
	var first error
	for _, rel := range j.Files {
		to := filepath.Join(dataDir, rel)
		if _, err := os.Lstat(filepath.Join(stage, rel)); err == nil {
			continue // still staged: never moved
		}
		if isNew[rel] {
			if err := os.Remove(to); err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
				first = err
			}
			continue
		}
		backup := filepath.Join(stage, previousName, rel)
		if _, err := os.Lstat(backup); err != nil {
			if first == nil {
				first = fmt.Errorf("the previous %s is gone: %w", rel, err)
			}
			continue
		}
		if err := os.Rename(backup, to); err != nil && first == nil {
			first = err
		}
		syncDir(filepath.Dir(to))
	}
	return first
}

func dropJournal(dataDir string) error {
	if err := os.Remove(JournalPath(dataDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	syncDir(dataDir)
	return nil
}

// DropStage removes the staging directory unless a journal still needs it.
func DropStage(dataDir, stage string) {
	if _, err := os.Stat(JournalPath(dataDir)); errors.Is(err, os.ErrNotExist) {
		os.RemoveAll(stage)
	}
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every OS syncs directories
		d.Close()
	}
}

// Recover completes or discards a refresh that was killed: with a commit
// journal it finishes moving the staged files (the new data wins) or, if
// a move fails, rolls every file back (the old data wins); without one it
// drops the staging directory (the old data stays). Leftover temporary
// files are removed. The caller holds the lock.
func Recover(dataDir string) error {
	_, err := recoverDir(dataDir)
	return err
}

// recoverDir is Recover, saying what it did: "" (nothing pending),
// "completed" (rolled forward) or "rolled back".
func recoverDir(dataDir string) (string, error) {
	stage := StageDir(dataDir)
	outcome := ""
	b, err := os.ReadFile(JournalPath(dataDir))
	switch {
	case err == nil:
		j, note := readJournal(b, stage)
		if j == nil {
			// WriteFileAtomic never leaves a partial journal, so this is
			// damage from outside, and the copy is damaged too. Which
			// files were moved is unknown: dropping the journal could
			// leave new files beside old ones, so it stays, every reader
			// refuses the directory, and the error names the way back.
			return "", damagedJournal(dataDir)
		} else if err := settle(dataDir, stage, *j, func(string) {}); err != nil {
			if _, jerr := os.Stat(JournalPath(dataDir)); jerr == nil {
				return "", err // still mid-commit: keep the staged files
			}
			outcome = "rolled back" + note
		} else {
			outcome = "completed" + note
		}
	case !errors.Is(err, os.ErrNotExist):
		return "", err
	}
	if err := os.RemoveAll(stage); err != nil {
		return outcome, err
	}
	for _, pattern := range []string{".*.tmp-*", ".cudb-build-*.db*", filepath.Join("sources", ".*.tmp-*")} {
		leftovers, _ := filepath.Glob(filepath.Join(dataDir, pattern))
		for _, p := range leftovers {
			os.Remove(p)
		}
	}
	return outcome, nil
}

// RecoverPending recovers dataDir when a commit journal is pending there,
// taking the refresh lock for it; every reader of a data directory
// (refresh, `cudb db build`, `cudb db check`, a command given --db) calls
// it first, so none sees a mix of old and new files. It returns what it
// did ("" when nothing was pending). While a live refresh holds the lock
// its commit is in progress, and the error wraps ErrLocked.
func RecoverPending(dataDir string) (string, error) {
	if _, err := os.Stat(JournalPath(dataDir)); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	lock, err := AcquireLock(dataDir)
	if err != nil {
		return "", fmt.Errorf("a refresh is committing into %s: %w", dataDir, err)
	}
	defer lock.Release()
	return recoverDir(dataDir)
}

// readJournal parses the journal b, or when it is damaged the copy the
// commit wrote into the staging directory before it (same content: the
// journal exists only after its copy). It returns nil when neither is
// whole, and a note when the copy stood in.
func readJournal(b []byte, stage string) (*journal, string) {
	if j, ok := parseJournal(b); ok {
		return j, ""
	}
	if c, err := os.ReadFile(filepath.Join(stage, journalCopy)); err == nil {
		if j, ok := parseJournal(c); ok {
			return j, " (the journal was damaged; its copy in " + stagingName + " was used)"
		}
	}
	return nil, ""
}

func parseJournal(b []byte) (*journal, bool) {
	var j journal
	if err := json.Unmarshal(b, &j); err != nil || len(j.Files) == 0 {
		return nil, false
	}
	for _, f := range append(append([]string(nil), j.Files...), j.New...) {
		if !filepath.IsLocal(f) {
			return nil, false
		}
	}
	return &j, true
}

// ErrDamagedJournal is returned (wrapped) when a commit journal cannot be
// read: the data directory may mix old and new files.
var ErrDamagedJournal = errors.New("the refresh commit journal is damaged")

func damagedJournal(dataDir string) error {
	j, st := JournalPath(dataDir), filepath.Join(dataDir, stagingName)
	return fmt.Errorf("%w (%s): which files the interrupted refresh moved is unknown, so %s may mix old and new data and is not read; "+
		"restore the directory (git checkout -- %s, or a backup) and remove the journal and staging folder (rm -r %s %s), "+
		"or remove them and rebuild every file (cudb refresh --data %s)",
		ErrDamagedJournal, j, dataDir, dataDir, j, st, dataDir)
}
