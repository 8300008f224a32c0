// Package probetest reads the fake hosts the probe's tests run on
// (internal/probe/testdata/hosts), for the tests of the probe,
// verify and the CLI. It is test support: the cudb binary never links it
// (cmd/cudb's TestBinaryLinksNoTestSupport checks), and it imports no cudb
// package, so the probe's own tests can use it too.
package probetest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Host is one fake host directory: root/ (the file tree), cmds/
// (recorded commands, optional: the probe's ReplayRunner format), env
// (KEY=VALUE lines; PYTHON names --python, DEEP=1 asks for the deep
// probe, DEEP_TIMEOUT bounds it) and emptydirs (directories git cannot
// keep, created under the host directory by Load).
type Host struct {
	// Root is the file tree, the probe's Options.Root.
	Root string
	// Cmds is the directory of recorded commands; "" when the host has
	// none (every command is then "not found").
	Cmds string
	// Env holds the environment variables the probe reads.
	Env map[string]string
	// Python, Deep and DeepTimeout are the probe options the env file
	// sets.
	Python      string
	Deep        bool
	DeepTimeout time.Duration
}

// Load reads the fake host in dir.
func Load(dir string) (Host, error) {
	if b, err := os.ReadFile(filepath.Join(dir, "emptydirs")); err == nil {
		for _, d := range strings.Fields(string(b)) {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				return Host{}, fmt.Errorf("failed to create %s: %w", d, err)
			}
		}
	}
	h := Host{Root: filepath.Join(dir, "root"), Env: map[string]string{}}
	if st, err := os.Stat(filepath.Join(dir, "cmds")); err == nil && st.IsDir() {
		h.Cmds = filepath.Join(dir, "cmds")
	}
	b, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		return Host{}, fmt.Errorf("failed to read the fake host's env: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "PYTHON":
			h.Python = v
		case "DEEP":
			h.Deep = v == "1"
		case "DEEP_TIMEOUT":
			d, err := time.ParseDuration(v)
			if err != nil {
				return Host{}, fmt.Errorf("fake host env: DEEP_TIMEOUT: %w", err)
			}
			h.DeepTimeout = d
		default:
			h.Env[k] = v
		}
	}
	return h, nil
}
