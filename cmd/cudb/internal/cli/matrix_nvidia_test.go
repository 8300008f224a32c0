package cli

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/spf13/cobra"
)

// TestNVIDIAMatrix runs the subcommands under a temporary parent until the
// lead's matrix.go registers them.
func TestNVIDIAMatrix(t *testing.T) {
	dbPath := os.Getenv("CUDB_TEST_NVIDIA_DB")
	if dbPath == "" {
		t.Skip("set CUDB_TEST_NVIDIA_DB to a database built with the NVIDIA sources")
	}
	for _, sub := range []string{"cuda", "cudnn", "gpu", "arch", "driver"} {
		s, out, _ := TestStreams("")
		f := NewFactory(s)
		root := NewRootCmd(f)
		m := &cobra.Command{Use: "nvmatrix"}
		m.AddCommand(nvidiaMatrixCmds(f)...)
		root.AddCommand(m)
		root.SetArgs([]string{"nvmatrix", sub, "--json", "--db", dbPath})
		if err := root.Execute(); err != nil {
			t.Fatalf("%s: %v", sub, err)
		}
		var rows []map[string]any
		if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) == 0 {
			t.Errorf("%s: %v (%d rows)", sub, err, len(rows))
		}
	}
}
