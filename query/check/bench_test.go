package check

import (
	"context"
	"os"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
)

// BenchmarkCheckDockerfile is `cudb check Dockerfile --driver … --gpu …`
// in process on the peer suite's busiest file (two frameworks, apt
// packages, unpinned lines), the database opened once.
func BenchmarkCheckDockerfile(b *testing.B) {
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	src, err := os.ReadFile("testdata/peer/Dockerfile.invalid")
	if err != nil {
		b.Fatal(err)
	}
	in := []Input{{Name: "Dockerfile", Data: src}}
	opts := Options{JudgeHost: judgeWithVerify, Target: Target{Driver: "535.104.05", GPU: "RTX 4090"}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Check(context.Background(), d, in, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseDockerfile is the parser alone on a 81-line multi-stage
// Dockerfile.
func BenchmarkParseDockerfile(b *testing.B) {
	src, err := os.ReadFile("testdata/real/tf63/Dockerfile")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseDockerfile("Dockerfile", string(src), nil); err != nil {
			b.Fatal(err)
		}
	}
}
