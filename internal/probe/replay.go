package probe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ReplayRunner answers commands from recorded outputs instead of running
// them: the fake hosts of the tests, and `cudb probe --root DIR --replay
// DIR/cmds` for a copied host tree. Each file in the directory records one
// command:
//
//	$ nvidia-smi --query-gpu=index,name --format=csv,noheader,nounits
//	# exit 0
//	0, NVIDIA H100 80GB HBM3
//
// The first line is the command (its base name and arguments, separated
// by single spaces); the second is "# exit N", "# hang" (block until the
// deadline) or "# notfound"; the rest is the output. Commands without a
// recording are not found. A recording may name the program by its full
// path, which matches before the base name does (two environments'
// interpreters differ only by path), and writes <deep-script> for
// DeepScript:
//
//	$ /home/u/venv/bin/python3 -c <deep-script>
type ReplayRunner struct {
	cmds map[string]recorded
}

type recorded struct {
	out  []byte
	code int
	hang bool
	gone bool
}

// LoadReplay reads the recordings in dir.
func LoadReplay(dir string) (*ReplayRunner, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to read recorded commands: %w", err)
	}
	r := &ReplayRunner{cmds: map[string]recorded{}}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("failed to read recorded command %s: %w", e.Name(), err)
		}
		key, rec, err := parseRecording(string(b))
		if err != nil {
			return nil, fmt.Errorf("recorded command %s: %w", e.Name(), err)
		}
		r.cmds[key] = rec
	}
	return r, nil
}

func parseRecording(s string) (string, recorded, error) {
	cmdLine, rest, _ := strings.Cut(s, "\n")
	status, out, _ := strings.Cut(rest, "\n")
	if !strings.HasPrefix(cmdLine, "$ ") {
		return "", recorded{}, fmt.Errorf("first line must be \"$ command args\"")
	}
	rec := recorded{out: []byte(out)}
	status = strings.TrimSpace(status)
	switch {
	case status == "# hang":
		rec.hang = true
	case status == "# notfound":
		rec.gone = true
	case strings.HasPrefix(status, "# exit "):
		n, err := strconv.Atoi(strings.TrimPrefix(status, "# exit "))
		if err != nil {
			return "", recorded{}, fmt.Errorf("bad exit status line %q", status)
		}
		rec.code = n
	default:
		return "", recorded{}, fmt.Errorf("second line must be \"# exit N\", \"# hang\" or \"# notfound\", got %q", status)
	}
	return strings.TrimSpace(cmdLine[2:]), rec, nil
}

// Run implements Runner.
func (r *ReplayRunner) Run(ctx context.Context, name string, args ...string) ([]byte, int, error) {
	keyArgs := make([]string, len(args))
	for i, a := range args {
		if a == DeepScript {
			a = deepScriptKey
		}
		keyArgs[i] = a
	}
	rec, ok := r.cmds[strings.Join(append([]string{name}, keyArgs...), " ")]
	if !ok {
		rec, ok = r.cmds[strings.Join(append([]string{baseName(name)}, keyArgs...), " ")]
	}
	if !ok || rec.gone {
		return nil, -1, &exec.Error{Name: name, Err: exec.ErrNotFound}
	}
	if rec.hang {
		<-ctx.Done()
		return nil, -1, ctx.Err()
	}
	return rec.out, rec.code, nil
}
