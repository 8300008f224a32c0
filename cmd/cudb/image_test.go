package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The release workflow hands the binaries from the build job to the image
// job as an artifact, and actions/upload-artifact does not keep file
// modes: what `docker build` finds in dist/ may be mode 0644. The image
// must start anyway, so the Dockerfile has to set the mode itself.
const artifactMode fs.FileMode = 0o644

// dockerStage is what the root-filesystem test needs from one stage of
// the Dockerfile: where it starts, what it copies, and what it runs.
type dockerStage struct {
	name, from string
	args       map[string]string
	copies     []dockerCopy
	user       string
	entrypoint []string
	cmd        []string
	env        map[string]string
}

type dockerCopy struct {
	line     int
	srcs     []string
	dst      string
	chmod    string // the --chmod value, "" when absent
	fromFlag string
}

// parseDockerfile reads the instructions the serve and fleet stages use
// (FROM, ARG, COPY, USER, ENV, ENTRYPOINT, CMD); any other instruction is
// an error, so a new one cannot slip past the test unread.
func parseDockerfile(text string) ([]*dockerStage, error) {
	var stages []*dockerStage
	global := map[string]string{}
	var cur *dockerStage
	sc := bufio.NewScanner(strings.NewReader(text))
	logical, start := "", 0
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if logical == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if logical == "" {
			start = n
		}
		if strings.HasSuffix(line, `\`) {
			logical += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		logical += line
		inst, rest, _ := strings.Cut(logical, " ")
		rest = strings.TrimSpace(rest)
		logical = ""
		switch strings.ToUpper(inst) {
		case "FROM":
			f := strings.Fields(rest)
			cur = &dockerStage{from: f[0], args: map[string]string{}, env: map[string]string{}}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				cur.name = f[2]
			}
			// A stage built on an earlier one starts from that one's state.
			for _, s := range stages {
				if s.name != "" && s.name == cur.from {
					cur.copies = append(cur.copies, s.copies...)
					cur.user, cur.entrypoint, cur.cmd = s.user, s.entrypoint, s.cmd
					for k, v := range s.env {
						cur.env[k] = v
					}
				}
			}
			stages = append(stages, cur)
		case "ARG":
			k, v, _ := strings.Cut(rest, "=")
			if cur == nil {
				global[k] = v
			} else {
				cur.args[k] = v
			}
		case "COPY", "ADD":
			if cur == nil {
				return nil, fmt.Errorf("line %d: %s before FROM", start, inst)
			}
			c := dockerCopy{line: start}
			f := strings.Fields(rest)
			for len(f) > 0 && strings.HasPrefix(f[0], "--") {
				k, v, _ := strings.Cut(strings.TrimPrefix(f[0], "--"), "=")
				switch k {
				case "chmod":
					c.chmod = v
				case "from":
					c.fromFlag = v
				case "chown", "link":
				default:
					return nil, fmt.Errorf("line %d: COPY --%s is not modelled", start, k)
				}
				f = f[1:]
			}
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: COPY needs a source and a destination", start)
			}
			c.srcs, c.dst = f[:len(f)-1], f[len(f)-1]
			cur.copies = append(cur.copies, c)
		case "USER":
			cur.user = rest
		case "ENV":
			k, v, _ := strings.Cut(rest, "=")
			cur.env[k] = v
		case "ENTRYPOINT", "CMD":
			var argv []string
			if err := json.Unmarshal([]byte(rest), &argv); err != nil {
				return nil, fmt.Errorf("line %d: %s is not in exec (JSON) form: %v", start, inst, err)
			}
			if strings.EqualFold(inst, "ENTRYPOINT") {
				// A new ENTRYPOINT resets an inherited CMD, as docker does.
				cur.entrypoint, cur.cmd = argv, nil
			} else {
				cur.cmd = argv
			}
		case "EXPOSE", "LABEL", "WORKDIR":
		default:
			return nil, fmt.Errorf("line %d: instruction %s is not modelled by this test", start, inst)
		}
	}
	// Global ARG defaults apply to a stage that re-declares the name.
	for _, s := range stages {
		for k, v := range s.args {
			if v == "" {
				s.args[k] = global[k]
			}
		}
	}
	return stages, sc.Err()
}

// buildRootFS applies a stage's COPY lines to an empty directory the way
// the builder does: the source from the build context, the mode from
// --chmod when given and from the source file otherwise.
func buildRootFS(t *testing.T, s *dockerStage, context, root string, buildArgs map[string]string) {
	t.Helper()
	expand := func(v string) string {
		return os.Expand(v, func(k string) string {
			if b, ok := buildArgs[k]; ok {
				return b
			}
			return s.args[k]
		})
	}
	for _, c := range s.copies {
		if c.fromFlag != "" {
			t.Fatalf("line %d: COPY --from is not modelled", c.line)
		}
		dst := filepath.Join(root, filepath.FromSlash(expand(c.dst)))
		for _, src := range c.srcs {
			from := filepath.Join(context, filepath.FromSlash(expand(src)))
			info, err := os.Stat(from)
			if err != nil {
				t.Fatalf("line %d: %v", c.line, err)
			}
			b, err := os.ReadFile(from)
			if err != nil {
				t.Fatal(err)
			}
			mode := info.Mode().Perm()
			if c.chmod != "" {
				m, err := strconv.ParseUint(c.chmod, 8, 32)
				if err != nil {
					t.Fatalf("line %d: --chmod=%s: %v", c.line, c.chmod, err)
				}
				mode = fs.FileMode(m)
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, mode); err != nil {
				t.Fatal(err)
			}
			// WriteFile's mode passes through the umask; COPY's does not.
			if err := os.Chmod(dst, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestImageRootFS builds the root filesystem of each image stage from the
// Dockerfile (no docker engine: the COPY lines applied to a directory) with
// the binary as the release workflow's artifact delivers it, and checks that
// the program the image starts is there, executable by the image's user,
// and runs.
func TestImageRootFS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image holds a linux binary; this test runs it")
	}
	dockerfile := os.Getenv("CUDB_TEST_DOCKERFILE")
	if dockerfile == "" {
		dockerfile = filepath.Join("..", "..", "Dockerfile")
	}
	text, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	stages, err := parseDockerfile(string(text))
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	bin := buildBinary(t)
	context := t.TempDir()
	arch := runtime.GOARCH
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(context, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	artifact := filepath.Join(context, "dist", "cudb-linux-"+arch)
	if err := os.WriteFile(artifact, b, artifactMode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(artifact, artifactMode); err != nil {
		t.Fatal(err)
	}

	checked := 0
	for _, s := range stages {
		if s.name != "serve" && s.name != "fleet" {
			continue
		}
		checked++
		t.Run(s.name, func(t *testing.T) {
			root := t.TempDir()
			buildRootFS(t, s, context, root, map[string]string{"TARGETARCH": arch})
			argv := append(append([]string{}, s.entrypoint...), s.cmd...)
			if len(argv) == 0 {
				t.Fatal("the stage starts nothing (no ENTRYPOINT or CMD)")
			}
			prog := argv[0]
			if !path.IsAbs(prog) {
				// The fleet image runs "cudb" through busybox's PATH; only
				// what this Dockerfile copies in is checked.
				prog = path.Join("/usr/local/bin", prog)
			}
			host := filepath.Join(root, filepath.FromSlash(prog))
			info, err := os.Stat(host)
			if err != nil {
				t.Fatalf("the entry point %s is not in the image: %v", prog, err)
			}
			// COPY without --chown leaves files owned by root, so a
			// numeric unprivileged USER executes through the "other" bits.
			need := fs.FileMode(0o100)
			if s.user != "" && !strings.HasPrefix(s.user, "0") && s.user != "root" {
				need = 0o001
			}
			if info.Mode().Perm()&need == 0 {
				t.Errorf("the entry point %s has mode %v: exec %q as user %q fails with permission denied", prog, info.Mode().Perm(), prog, s.user)
			}
			out, err := exec.Command(host, "--version").CombinedOutput()
			if err != nil {
				t.Fatalf("%s --version from the image's root filesystem: %v %s", prog, err, out)
			}
			if !strings.HasPrefix(string(out), "cudb ") {
				t.Errorf("%s --version: %q", prog, out)
			}
		})
	}
	if checked != 2 {
		t.Errorf("found %d of the serve and fleet stages", checked)
	}
}
