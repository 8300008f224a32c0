package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cudb/cudb/internal/errs"
)

// LockName is the lock file inside a data directory that keeps two
// refreshes from writing at once.
const LockName = ".refresh.lock"

// staleLockAge is how old a lock must be before one whose owner cannot be
// checked (another OS) is taken over.
const staleLockAge = 6 * time.Hour

// ErrLocked is returned (wrapped) when another live refresh holds the lock.
var ErrLocked = errors.New("another refresh is running")

// Lock is a held refresh lock.
type Lock struct{ path string }

// AcquireLock creates dataDir/.refresh.lock exclusively, holding this
// process's pid; dataDir must exist. A lock left by a process that no longer runs (killed) is
// stale and is taken over.
func AcquireLock(dataDir string) (*Lock, error) {
	path := filepath.Join(dataDir, LockName)
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := fmt.Fprintf(f, "%d\n", os.Getpid())
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("failed to write %s: %w", path, werr)
			}
			return &Lock{path}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("failed to create %s: %w", path, err)
		}
		owner, live := lockOwner(path)
		if live {
			return nil, fmt.Errorf("%w (%s holds %s; if no refresh is running, remove it: rm %s)", ErrLocked, owner, path, path)
		}
		// Stale: its owner is gone. Remove and try once more; if another
		// process wins the race, O_EXCL reports it on the retry.
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("failed to remove the stale lock %s: %w", path, err)
		}
	}
	return nil, fmt.Errorf("%w (%s was re-created while taking over a stale lock)", ErrLocked, path)
}

// writeGrace is how long a lock file may stay empty or unreadable while
// its creator writes its pid; past it the content is garbage and the lock
// is stale.
const writeGrace = 5 * time.Second

// lockOwner names who holds a lock file and reports whether it still
// does: a running pid, or a file being written right now. A pid that no
// longer runs, or content that is not a pid once the writer has had time
// to write it, is a stale lock (taken over).
func lockOwner(path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return "nobody", false
	}
	b, err := os.ReadFile(path)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil || pid <= 0 {
		return fmt.Sprintf("a lock file that names no process (%s)", errs.Quote(string(b))), time.Since(st.ModTime()) < writeGrace
	}
	owner := fmt.Sprintf("pid %d", pid)
	if pid == os.Getpid() {
		return owner, true
	}
	alive, known := processAlive(pid)
	if !known {
		return owner + " (whether it runs cannot be checked here)", time.Since(st.ModTime()) < staleLockAge
	}
	return owner, alive
}

// Release removes the lock.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	return os.Remove(l.path)
}
