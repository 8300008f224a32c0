package cli

import (
	"encoding/json"
	"testing"
)

// TestNVIDIAMatrix runs each NVIDIA matrix table through the real command
// tree on the embedded database and asserts it lists rows.
func TestNVIDIAMatrix(t *testing.T) {
	for _, sub := range []string{"cuda", "cudnn", "gpu", "arch", "driver"} {
		s, out, _ := TestStreams("")
		root := NewRootCmd(NewFactory(s))
		root.SetArgs([]string{"matrix", sub, "--json"})
		if err := root.Execute(); err != nil {
			t.Fatalf("matrix %s: %v", sub, err)
		}
		var rows []map[string]any
		if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) == 0 {
			t.Errorf("matrix %s --json: %v (%d rows)", sub, err, len(rows))
		}
	}
}
