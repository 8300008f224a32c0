package query

import (
	"context"
	"testing"

	"github.com/cudb/cudb/data"
	"github.com/cudb/cudb/db"
)

func embedded(b *testing.B) *db.DB {
	b.Helper()
	d, err := db.OpenImage(context.Background(), data.DB, data.Columns, "embedded")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	return d
}

// BenchmarkOpenEmbedded is the start-up cost every command pays.
func BenchmarkOpenEmbedded(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded")
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

func benchResolve(b *testing.B, req ResolveRequest) {
	d := embedded(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Resolve(ctx, d, req)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Stacks) == 0 {
			b.Fatal("no stacks")
		}
	}
}

// BenchmarkResolveTorch is `cudb resolve torch==2.1 --cuda 12.1` in process.
func BenchmarkResolveTorch(b *testing.B) {
	benchResolve(b, ResolveRequest{Requirements: []string{"torch==2.1"}, CUDA: "12.1"})
}

// BenchmarkResolveTorch21 is `cudb resolve torch==2.1` in process, on a
// handle that has answered it before (what a server pays).
func BenchmarkResolveTorch21(b *testing.B) {
	benchResolve(b, ResolveRequest{Requirements: []string{"torch==2.1"}})
}

// BenchmarkOpenResolveTorch21 is what one `cudb resolve torch==2.1` pays
// in process: open the embedded image and answer on a fresh handle (the
// database's pages and the handle's caches are cold, the code is warm).
func BenchmarkOpenResolveTorch21(b *testing.B) {
	ctx := context.Background()
	req := ResolveRequest{Requirements: []string{"torch==2.1"}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d, err := db.OpenImage(ctx, data.DB, data.Columns, "embedded")
		if err != nil {
			b.Fatal(err)
		}
		if res, err := Resolve(ctx, d, req); err != nil || len(res.Stacks) == 0 {
			b.Fatalf("%v %v", err, res)
		}
		d.Close()
	}
}

// BenchmarkResolveTorchAll is the widest torch question: every release.
func BenchmarkResolveTorchAll(b *testing.B) {
	benchResolve(b, ResolveRequest{Requirements: []string{"torch"}})
}

// BenchmarkResolveDriverGPU is resolve with host constraints:
// `cudb resolve torch==2.4.0 --driver 535.104.05 --gpu "Tesla T4"`.
func BenchmarkResolveDriverGPU(b *testing.B) {
	benchResolve(b, ResolveRequest{Requirements: []string{"torch==2.4.0"}, Driver: "535.104.05", GPU: "Tesla T4"})
}

// BenchmarkResolveConflict is a pair that cannot share an environment:
// the conflict and the search for the nearest agreeing versions.
func BenchmarkResolveConflict(b *testing.B) {
	d := embedded(b)
	ctx := context.Background()
	req := ResolveRequest{Requirements: []string{"torch==2.3.1", "tensorflow==2.16.1"}}
	for i := 0; i < b.N; i++ {
		res, err := Resolve(ctx, d, req)
		if err != nil || len(res.Conflicts) == 0 {
			b.Fatalf("%v %v", err, res)
		}
	}
}
