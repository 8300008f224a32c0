package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDamagedJournalIsNeverDropped: a journal that does not parse leaves
// which files were moved unknown; recovering refuses the directory (every
// reader, `cudb db check` included, fails) and names the way back, and
// the journal and staged files stay.
func TestDamagedJournalIsNeverDropped(t *testing.T) {
	for _, content := range []string{"{not json", "", `{"files": []}`} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, stagingName, "sources"), 0o755)
		os.WriteFile(filepath.Join(dir, stagingName, "sources", "gpus.json"), []byte("new"), 0o644)
		os.WriteFile(filepath.Join(dir, "cudb.db"), []byte("old"), 0o644)
		if err := os.WriteFile(JournalPath(dir), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := RecoverPending(dir)
		if !errors.Is(err, ErrDamagedJournal) || !strings.Contains(err.Error(), "git checkout -- "+dir) || !strings.Contains(err.Error(), "rm -r "+JournalPath(dir)) {
			t.Fatalf("%q: %v, want ErrDamagedJournal naming the recovery", content, err)
		}
		if _, err := os.Stat(JournalPath(dir)); err != nil {
			t.Errorf("%q: the damaged journal was dropped", content)
		}
		if _, err := os.Stat(filepath.Join(dir, stagingName, "sources", "gpus.json")); err != nil {
			t.Errorf("%q: the staged files were dropped", content)
		}
		if err := Recover(dir); !errors.Is(err, ErrDamagedJournal) {
			t.Errorf("%q: Recover (refresh, db build): %v", content, err)
		}
	}
}

// TestGarbageLock: a lock file that names no process is stale once its
// writer has had time to write a pid, and is taken over; while young it
// is named for what it is, with the command that removes it.
func TestGarbageLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockName)
	os.WriteFile(path, []byte("garbage\n"), 0o644)
	_, err := AcquireLock(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), `names no process ("garbage\n")`) || !strings.Contains(err.Error(), "rm "+path) {
		t.Fatalf("young garbage lock: %v", err)
	}
	old := time.Now().Add(-time.Minute)
	os.Chtimes(path, old, old)
	l, err := AcquireLock(dir)
	if err != nil {
		t.Fatalf("old garbage lock not taken over: %v", err)
	}
	l.Release()
	// A pid that runs no process is stale at once, whatever its age.
	os.WriteFile(path, []byte("2147483646\n"), 0o644)
	l, err = AcquireLock(dir)
	if err != nil {
		t.Fatalf("dead pid's lock not taken over: %v", err)
	}
	l.Release()
}
