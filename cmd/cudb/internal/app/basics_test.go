package app

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cudb/cudb/cmd/cudb/internal/cli"
	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query/querytest"
)

// embeddedAsOf reads data_as_of from the embedded database, the date the
// notice and the version lines are judged against.
func embeddedAsOf(t *testing.T) time.Time {
	t.Helper()
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	meta, err := d.Meta(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	asOf, err := time.Parse(time.DateOnly, meta["data_as_of"])
	if err != nil {
		t.Fatalf("embedded data_as_of %q: %v", meta["data_as_of"], err)
	}
	return asOf
}

func TestVersionFlagAndCommand(t *testing.T) {
	asOf := embeddedAsOf(t).Format(time.DateOnly)
	code, out, stderr := run(t, false, "--version")
	want := "cudb dev (data as of " + asOf + ", schema " + itoa(db.SchemaVersion) + ")\n"
	if code != 0 || out != want {
		t.Fatalf("--version: exit %d, out %q (want %q), stderr %q", code, out, want, stderr)
	}
	code, out, stderr = run(t, false, "version", "--json")
	var v cli.VersionInfo
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
		t.Fatalf("version --json: exit %d, %v: %s %s", code, err, out, stderr)
	}
	if v.DataAsOf != asOf || v.SchemaVersion != db.SchemaVersion || v.Version != "dev" || v.Database != "embedded database" || len(v.BuiltFrom) < 12 {
		t.Errorf("version --json = %+v", v)
	}
	_, out, _ = run(t, false, "version")
	for _, want := range []string{"data_as_of\t" + asOf, "schema\t" + itoa(db.SchemaVersion), "version\tdev"} {
		if !strings.Contains(out, want) {
			t.Errorf("version lacks %q:\n%s", want, out)
		}
	}
	// --db names another database: version reports that one's date (the
	// fixture states none).
	code, out, _ = run(t, false, "--version", "--db", querytest.Path(t))
	if code != 0 || !strings.Contains(out, "data as of unknown") {
		t.Errorf("--version --db fixture: exit %d %q", code, out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "complete -o default -F __start_cudb cudb",
		"zsh":        "#compdef cudb",
		"fish":       "complete -c cudb",
		"powershell": "Register-ArgumentCompleter",
	} {
		code, out, stderr := run(t, false, "completion", shell)
		if code != 0 || !strings.Contains(out, marker) {
			t.Errorf("completion %s: exit %d, stderr %q, output lacks %q", shell, code, stderr, marker)
		}
	}
	if code, _, stderr := run(t, false, "completion", "tcsh"); code != 2 || !strings.Contains(stderr, "Try:") {
		t.Errorf("completion tcsh: exit %d, %q", code, stderr)
	}
}

func TestDBInfoNewestReleases(t *testing.T) {
	code, out, stderr := run(t, false, "db", "info", "--json", "--db", querytest.PinPath(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var info cli.DBInfo
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range info.Newest {
		got[n.Line] = n.Version
	}
	// PinFacts holds torch up to 2.4.0, tensorflow up to 2.18.0 and
	// CUDA up to 12.5.1: the newest of each line.
	for line, want := range map[string]string{"torch": "2.4.0", "tensorflow": "2.18.0", "cuda": "12.5.1"} {
		if got[line] != want {
			t.Errorf("newest %s = %q, want %q (all: %v)", line, got[line], want, got)
		}
	}
	// On a terminal the lines come first, under the data date.
	code, out, _ = run(t, true, "db", "info")
	if code != 0 || !strings.Contains(out, "data as of: "+embeddedAsOf(t).Format(time.DateOnly)) || !strings.Contains(out, "NEWEST") {
		t.Errorf("db info:\n%s", out)
	}
}

// runAt drives cudb at a given wall-clock time with an environment.
func runAt(t *testing.T, now time.Time, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	s, out, errOut := cli.TestStreams("")
	s.Now = func() time.Time { return now }
	s.Getenv = func(k string) string { return env[k] }
	code := Main(args, s)
	return code, out.String(), errOut.String()
}

func TestDataAgeNotice(t *testing.T) {
	asOf := embeddedAsOf(t)
	old := asOf.Add(75 * 24 * time.Hour)
	fresh := asOf.Add(59 * 24 * time.Hour)
	args := []string{"resolve", "torch==2.1", "--cuda", "12.1"}

	code, out, stderr := runAt(t, old, nil, args...)
	if code != 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "cudb's data is 75 days old") ||
		!strings.Contains(stderr, "CUDB_NO_DATA_AGE_NOTICE=1") || strings.Contains(out, "days old") {
		t.Errorf("75 days: exit %d, stderr %q", code, stderr)
	}
	for name, tc := range map[string]struct {
		now  time.Time
		env  map[string]string
		args []string
	}{
		"59 days":     {fresh, nil, args},
		"--quiet":     {old, nil, append([]string{"--quiet"}, args...)},
		"-q":          {old, nil, append(append([]string{}, args...), "-q")},
		"environment": {old, map[string]string{"CUDB_NO_DATA_AGE_NOTICE": "1"}, args},
		"--json":      {old, nil, append(append([]string{}, args...), "--json")},
	} {
		code, out, stderr := runAt(t, tc.now, tc.env, tc.args...)
		if code != 0 || stderr != "" || strings.Contains(out, "days old") {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
	// CUDB_NO_DATA_AGE_NOTICE=0 does not turn it off.
	if _, _, stderr := runAt(t, old, map[string]string{"CUDB_NO_DATA_AGE_NOTICE": "0"}, args...); !strings.Contains(stderr, "days old") {
		t.Errorf("=0 silenced the notice")
	}
	// Commands that read no data say nothing.
	if _, _, stderr := runAt(t, old, nil, "completion", "bash"); stderr != "" {
		t.Errorf("completion printed %q", stderr)
	}
}

func TestDataAgeNoticeText(t *testing.T) {
	now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	if got := cli.DataAgeNotice("2026-10-01", now); !strings.HasPrefix(got, "note: cudb's data is 92 days old (newest fact 2026-10-01)") {
		t.Errorf("notice = %q", got)
	}
	for _, asOf := range []string{"2026-11-15", "", "garbage"} {
		if got := cli.DataAgeNotice(asOf, now); got != "" {
			t.Errorf("DataAgeNotice(%q) = %q, want none", asOf, got)
		}
	}
}

// TestPinUVIsAProject: the uv output is a complete pyproject.toml (a
// [project] with name and version, overridable), which Python's own TOML
// parser reads; conda files carry a name.
func TestPinUVIsAProject(t *testing.T) {
	code, out, stderr := run(t, false, "pin", "torch==2.1.0", "--cuda", "11.8", "--format", "uv")
	if code != 0 || !strings.Contains(out, "[project]\nname = \"torch-2.1.0-cu118\"\nversion = \"0.1.0\"\n") {
		t.Fatalf("exit %d %s:\n%s", code, stderr, out)
	}
	code, out, _ = run(t, false, "pin", "torch==2.1.0", "--cuda", "11.8", "--format", "uv", "--name", "my-app", "--project-version", "2.0.1")
	if code != 0 || !strings.Contains(out, "name = \"my-app\"\nversion = \"2.0.1\"\n") {
		t.Fatalf("--name/--project-version: exit %d:\n%s", code, out)
	}
	if python, err := exec.LookPath("python3"); err != nil {
		t.Log("python3 missing: the TOML parse check is skipped")
	} else {
		cmd := exec.Command(python, "-c", `import sys
try:
    import tomllib
except ImportError:
    print("skip"); sys.exit(0)
p = tomllib.loads(sys.stdin.read())["project"]
assert p["name"] == "my-app" and p["version"] == "2.0.1" and p["dependencies"][0] == "torch==2.1.0+cu118", p
print("ok")`)
		cmd.Stdin = strings.NewReader(out)
		if got, err := cmd.CombinedOutput(); err != nil || (string(got) != "ok\n" && string(got) != "skip\n") {
			t.Errorf("tomllib: %v %s", err, got)
		}
	}
	if code, _, stderr := run(t, false, "pin", "torch==2.1.0", "--format", "uv", "--name", "-bad name"); code != 2 || !strings.Contains(stderr, "invalid project name") {
		t.Errorf("bad name: exit %d %q", code, stderr)
	}
	if code, _, stderr := run(t, false, "pin", "torch==2.1.0", "--format", "uv", "--project-version", "one"); code != 2 || !strings.Contains(stderr, "invalid project version") {
		t.Errorf("bad version: exit %d %q", code, stderr)
	}
	_, out, _ = run(t, false, "pin", "torch==1.13.1", "--format", "conda")
	if !strings.Contains(out, "\nname: torch-1.13.1-cu117\n") {
		t.Errorf("conda name:\n%s", out)
	}
}
