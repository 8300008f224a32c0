package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/host"
)

func TestProbeCmdReplay(t *testing.T) {
	const h = "../../../../internal/probe/testdata/hosts/healthy"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"probe", "--root", h + "/root", "--replay", h + "/cmds"}, "GPU 0:         NVIDIA H100 80GB HBM3 (compute 9.0)"},
		{[]string{"probe", "--root", h + "/root", "--replay", h + "/cmds", "--json"}, `"origin": "host"`},
	} {
		s, out, _ := TestStreams("")
		f := NewFactory(s)
		root := NewRootCmd(f)
		root.SetArgs(tc.args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out)
		}
		if f.JSON {
			var facts host.Snapshot
			if err := json.Unmarshal(out.Bytes(), &facts); err != nil || facts.Driver == nil || facts.Driver.Version != "550.90.07" {
				t.Errorf("--json does not decode to the facts: %v %+v", err, facts.Driver)
			}
		}
	}
}

func TestProbeCmdUsage(t *testing.T) {
	s, _, _ := TestStreams("")
	root := NewRootCmd(NewFactory(s))
	root.SetArgs([]string{"probe", "extra"})
	if err := root.Execute(); err == nil {
		t.Fatal("want a usage error for a positional argument")
	}
}
