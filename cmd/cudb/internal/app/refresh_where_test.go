package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudb/cudb/cmd/cudb/internal/app"
	"github.com/cudb/cudb/cmd/cudb/internal/cli"
)

// dbSources runs `cudb db info --json` with env and args and returns the
// names of the sources of the database it read.
func dbSources(t *testing.T, env map[string]string, args ...string) (int, []string, string) {
	t.Helper()
	s, out, errOut := cli.TestStreams("")
	s.Getenv = func(k string) string { return env[k] }
	code := app.Main(append([]string{"db", "info", "--json"}, args...), s)
	if code != 0 {
		return code, nil, errOut.String()
	}
	var info struct {
		Sources []struct {
			Name string `json:"name"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		t.Fatalf("db info --json: %v\n%s", err, out)
	}
	var names []string
	for _, s := range info.Sources {
		names = append(names, s.Name)
	}
	return code, names, errOut.String()
}

// TestRefreshSaysWhereAndHowToUseIt: refresh names the folder it wrote
// and the database file, and says the binary keeps its embedded data
// unless given --db or CUDB_DB; later commands then read the refreshed
// database through either (the file or its folder), and the embedded one
// without them.
func TestRefreshSaysWhereAndHowToUseIt(t *testing.T) {
	data := filepath.Join(t.TempDir(), "my data")
	base := serve(t, map[string]string{"fake-a": page(3), "fake-b": page(4)})
	code, _, errOut := fakeRun("refresh", "--init", "--data", data, "--base-url", base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	file := filepath.Join(data, "cudb.db")
	for _, want := range []string{
		"refresh: wrote ", " into " + data + "\n",
		"refresh: the database is " + file + ";",
		"cudb keeps reading the copy built into its binary",
		"--db '" + file + "'", "export CUDB_DB='" + file + "'",
		"rebuild the binary",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// A relative --data is reported as an absolute path.
	wd, _ := os.Getwd()
	t.Chdir(filepath.Dir(data))
	if code, _, errOut := fakeRun("refresh", "--data", "my data", "--base-url", base); code != 0 ||
		!strings.Contains(errOut, "refresh: nothing changed in "+data+"\n") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
	t.Chdir(wd)

	_, embedded, _ := dbSources(t, nil)
	if len(embedded) < 5 || embedded[0] == "fake-a" {
		t.Fatalf("the embedded database's sources: %v", embedded)
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"--db file", nil, []string{"--db", file}},
		{"--db folder", nil, []string{"--db", data}},
		{"CUDB_DB file", map[string]string{"CUDB_DB": file}, nil},
		{"CUDB_DB folder", map[string]string{"CUDB_DB": data}, nil},
		{"--db over CUDB_DB", map[string]string{"CUDB_DB": t.TempDir()}, []string{"--db", file}},
	} {
		code, got, errOut := dbSources(t, c.env, c.args...)
		if code != 0 || strings.Join(got, ",") != "fake-a,fake-b" {
			t.Errorf("%s: exit %d, sources %v: %s", c.name, code, got, errOut)
		}
	}
	// A folder without a database is refused, naming where the path came from.
	empty := t.TempDir()
	for _, c := range []struct {
		env  map[string]string
		args []string
		from string
	}{{nil, []string{"--db", empty}, "--db"}, {map[string]string{"CUDB_DB": empty}, nil, "CUDB_DB"}} {
		code, _, errOut := dbSources(t, c.env, c.args...)
		if code != 2 || !strings.Contains(errOut, c.from+" "+empty+" is a folder without a cudb.db") {
			t.Errorf("%s empty folder: exit %d: %s", c.from, code, errOut)
		}
	}
	// refresh --help says all of this too.
	s, out, _ := cli.TestStreams("")
	app.Main([]string{"refresh", "--help"}, s)
	for _, want := range []string{"./data relative to the current", "--db DIR/cudb.db", "CUDB_DB", "make\nbuild"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("refresh --help lacks %q", want)
		}
	}
}
