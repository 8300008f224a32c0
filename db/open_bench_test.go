package db

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkOpenFile measures opening a copy of the shipped database as
// `--db FILE` does (docs/benchmarks.md, "Opening --db FILE"):
//
//   - convert: no column image is kept beside the file (a read-only
//     folder, or the first open), so every table is read through SQLite
//     and encoded: what every open cost before images were kept.
//   - kept: the image kept by an earlier open is read instead; the file is
//     still read and hashed, to find it.
func BenchmarkOpenFile(b *testing.B) {
	img, err := os.ReadFile(shippedDB)
	if err != nil {
		b.Skipf("no shipped database (%v): run `make data`", err)
	}
	ctx := context.Background()
	copyIn := func(b *testing.B) string {
		p := filepath.Join(b.TempDir(), "cudb.db")
		if err := os.WriteFile(p, img, 0o644); err != nil {
			b.Fatal(err)
		}
		return p
	}
	b.Run("convert", func(b *testing.B) {
		path := copyIn(b)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			d, err := OpenFile(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			d.Close()
		}
	})
	b.Run("kept", func(b *testing.B) {
		path := copyIn(b)
		d, err := OpenFileCached(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
		if len(kept(b, filepath.Dir(path))) != 1 {
			b.Fatal("no image was kept")
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			d, err := OpenFileCached(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			d.Close()
		}
	})
}
