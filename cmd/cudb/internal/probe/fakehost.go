package probe

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LoadFakeHost reads a fake host directory as the tests lay it out:
// root/ (the file tree), cmds/ (recorded commands, optional), env
// (KEY=VALUE lines; PYTHON names --python, DEEP=1 sets Deep,
// DEEP_TIMEOUT a DeepTimeout) and emptydirs (directories git
// cannot keep, created under the host directory first). Other packages'
// tests use it to run the probe on the same hosts.
func LoadFakeHost(dir string) (Options, error) {
	if b, err := os.ReadFile(filepath.Join(dir, "emptydirs")); err == nil {
		for _, d := range strings.Fields(string(b)) {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				return Options{}, fmt.Errorf("failed to create %s: %w", d, err)
			}
		}
	}
	rr := &ReplayRunner{cmds: map[string]recorded{}}
	if _, err := os.Stat(filepath.Join(dir, "cmds")); err == nil {
		if rr, err = LoadReplay(filepath.Join(dir, "cmds")); err != nil {
			return Options{}, err
		}
	}
	opts := Options{Root: filepath.Join(dir, "root"), Env: map[string]string{}, Runner: rr, Timeout: time.Second}
	b, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		return Options{}, fmt.Errorf("failed to read the fake host's env: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "PYTHON":
			opts.Python = v
			continue
		case "DEEP":
			opts.Deep = v == "1"
			continue
		case "DEEP_TIMEOUT":
			d, err := time.ParseDuration(v)
			if err != nil {
				return Options{}, fmt.Errorf("fake host env: DEEP_TIMEOUT: %w", err)
			}
			opts.DeepTimeout = d
			continue
		}
		opts.Env[k] = v
	}
	return opts, nil
}
