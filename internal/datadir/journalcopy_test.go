package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedJournalRecoveredFromItsCopy: Commit writes the journal's copy
// into the staging folder before the journal, so a journal damaged from
// outside is recovered from it (the commit completes: all-new data); when
// the copy is damaged too, or names a file outside the directory, the
// directory is refused as before and nothing moves.
func TestDamagedJournalRecoveredFromItsCopy(t *testing.T) {
	setup := func(copyText string) string {
		dir := t.TempDir()
		stage := filepath.Join(dir, stagingName)
		os.MkdirAll(filepath.Join(stage, previousName), 0o755)
		os.MkdirAll(filepath.Join(dir, "sources"), 0o755)
		os.WriteFile(filepath.Join(stage, "cudb.db"), []byte("new db"), 0o644) // not moved yet
		os.WriteFile(filepath.Join(stage, previousName, "cudb.db"), []byte("old db"), 0o644)
		os.WriteFile(filepath.Join(dir, "cudb.db"), []byte("old db"), 0o644)
		os.WriteFile(filepath.Join(dir, "sources", "a.json"), []byte("new a"), 0o644) // moved, had none
		os.WriteFile(JournalPath(dir), []byte(`{"files":["sources/a.js`), 0o644)
		if copyText != "" {
			os.WriteFile(filepath.Join(stage, journalCopy), []byte(copyText), 0o644)
		}
		return dir
	}
	dir := setup(`{"files":["sources/a.json","cudb.db"],"new":["sources/a.json"]}`)
	outcome, err := RecoverPending(dir)
	if err != nil || !strings.Contains(outcome, "completed") || !strings.Contains(outcome, "copy") {
		t.Fatalf("outcome %q, %v", outcome, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cudb.db")); string(b) != "new db" {
		t.Errorf("cudb.db = %q, want the new one", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sources", "a.json")); string(b) != "new a" {
		t.Errorf("sources/a.json = %q", b)
	}
	for _, p := range []string{JournalPath(dir), filepath.Join(dir, stagingName)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left behind", p)
		}
	}

	for _, bad := range []string{"{not json", `{"files":["../../etc/passwd"]}`} {
		dir := setup(bad)
		if _, err := RecoverPending(dir); !errors.Is(err, ErrDamagedJournal) {
			t.Errorf("copy %q: %v, want ErrDamagedJournal", bad, err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "cudb.db")); string(b) != "old db" {
			t.Errorf("copy %q: cudb.db changed to %q", bad, b)
		}
	}
}

// TestCommitWritesTheJournalCopy: a commit killed after its journal has
// the copy beside the staged files.
func TestCommitWritesTheJournalCopy(t *testing.T) {
	dir := t.TempDir()
	stage := StageDir(dir)
	os.MkdirAll(stage, 0o755)
	os.WriteFile(filepath.Join(stage, "cudb.db"), []byte("new"), 0o644)
	var copyAtJournal []byte
	err := Commit(dir, stage, []string{"cudb.db"}, func(step string) {
		if step == "journal" {
			copyAtJournal, _ = os.ReadFile(filepath.Join(stage, journalCopy))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if j, ok := parseJournal(copyAtJournal); !ok || len(j.Files) != 1 || j.Files[0] != "cudb.db" {
		t.Errorf("the copy at the journal step: %q", copyAtJournal)
	}
}
