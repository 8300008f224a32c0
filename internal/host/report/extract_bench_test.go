package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkParse reads a real collect_env and pastes of growing length
// (the fixture followed by traceback filler) through every recogniser
// and the free-text extractor.
func BenchmarkParse(b *testing.B) {
	ce, err := os.ReadFile(filepath.Join("testdata", "collect_env_new.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{0, 1000, 3500} {
		var sb strings.Builder
		sb.Write(ce)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "  File \"/usr/lib/python3/dist-packages/module%d.py\", line %d, in call\n", i%7, i)
		}
		text := []byte(sb.String())
		b.Run(fmt.Sprintf("filler=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				if _, _, err := Parse(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
