package db

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dirNames lists the names in dir, sorted.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// kept returns the names of the column images kept in dir.
func kept(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range dirNames(t, dir) {
		if IsKeptColumns(n) {
			out = append(out, n)
		}
	}
	return out
}

func gpuNames(t *testing.T, d *DB) []string {
	t.Helper()
	gs, err := d.GPUs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range gs {
		names = append(names, g.Name)
	}
	sort.Strings(names)
	return names
}

// TestOpenFileCachedKeepsTheImage: the first open converts and keeps the
// column image beside the file; the second reads it (shown by planting
// another valid image under that name: its facts answer); a new content
// gets a new image and the old one goes.
func TestOpenFileCachedKeepsTheImage(t *testing.T) {
	ctx := context.Background()
	path := write(t, sampleFacts())
	dir := filepath.Dir(path)

	d, err := OpenFileCached(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	first := kept(t, dir)
	if len(first) != 1 {
		t.Fatalf("kept images after the first open: %v (dir %v)", first, dirNames(t, dir))
	}
	if d.PendingCommit() != "" {
		t.Errorf("pending commit reported without a journal: %s", d.PendingCommit())
	}

	// Plant the image of other facts under the kept name.
	other := sampleFacts()
	other.GPUs = append(other.GPUs, GPU{Name: "Only In The Kept Image", ComputeCapability: "9.0", Provenance: Provenance{Source: "a"}})
	cols, err := EncodeColumns(ctx, write(t, other))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, first[0]), cols, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err = OpenFileCached(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := gpuNames(t, d); len(got) != 2 || got[0] != "Only In The Kept Image" {
		t.Fatalf("the second open did not read the kept image: GPUs %v", got)
	}
	d.Close()

	// OpenFile reads a kept image too, and writes none.
	d, err = OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := gpuNames(t, d); len(got) != 2 {
		t.Errorf("OpenFile did not read the kept image: %v", got)
	}
	d.Close()

	// A damaged kept image is converted again and replaced.
	if err := os.WriteFile(filepath.Join(dir, first[0]), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err = OpenFileCached(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := gpuNames(t, d); len(got) != 1 || got[0] != "Tesla T4" {
		t.Errorf("after a damaged kept image: GPUs %v", got)
	}
	d.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, first[0])); string(b) == "damaged" {
		t.Error("the damaged image was not replaced")
	}

	// New content: a new image, and the one of the old content is removed.
	b, err := os.ReadFile(write(t, other))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err = OpenFileCached(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := gpuNames(t, d); len(got) != 2 {
		t.Errorf("after the file changed: GPUs %v", got)
	}
	d.Close()
	if now := kept(t, dir); len(now) != 1 || now[0] == first[0] {
		t.Errorf("kept images after the file changed: %v (before %v)", now, first)
	}
	// Nothing else was left: no temporary file.
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("folder holds %v", names)
	}
}

// TestOpenFileWritesNothing: OpenFile converts in memory.
func TestOpenFileWritesNothing(t *testing.T) {
	path := write(t, sampleFacts())
	d, err := OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if names := dirNames(t, filepath.Dir(path)); len(names) != 1 {
		t.Errorf("OpenFile wrote beside the file: %v", names)
	}
	if _, err := d.Check(context.Background()); err != nil {
		t.Errorf("check after a converting open: %v", err)
	}
}

// TestOpenFileCachedReportsAPendingCommit: a journal beside the file is
// reported and left alone, staged files and all.
func TestOpenFileCachedReportsAPendingCommit(t *testing.T) {
	path := write(t, sampleFacts())
	dir := filepath.Dir(path)
	stage := filepath.Join(dir, ".refresh-staging")
	if err := os.MkdirAll(stage, 0o755); err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(stage, "manifest.json")
	os.WriteFile(staged, []byte("new manifest"), 0o644)
	journal := filepath.Join(dir, ".refresh-commit.json")
	os.WriteFile(journal, []byte(`{"files":["manifest.json"]}`), 0o644)

	d, err := OpenFileCached(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.PendingCommit() != journal {
		t.Errorf("PendingCommit = %q, want %q", d.PendingCommit(), journal)
	}
	for _, p := range []string{journal, staged} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a read recovered the commit: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		t.Error("a read moved a staged file into place")
	}
}

// TestOpenFileCachedReadOnlyFolder: a folder that cannot be written
// opens all the same, converting in memory, with nothing said.
func TestOpenFileCachedReadOnlyFolder(t *testing.T) {
	path := write(t, sampleFacts())
	dir := filepath.Dir(path)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if f, err := os.CreateTemp(dir, "probe-*"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("this user writes into a read-only folder (root): nothing to test")
	}
	for i := 0; i < 2; i++ {
		d, err := OpenFileCached(context.Background(), path)
		if err != nil {
			t.Fatalf("open %d: %v", i+1, err)
		}
		if got := gpuNames(t, d); len(got) != 1 {
			t.Errorf("open %d: GPUs %v", i+1, got)
		}
		d.Close()
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("folder holds %v", names)
	}
}

// TestOpenFileCachedLeavesWhatIsNotOurs: a folder at the kept image's
// name is not replaced; the database opens all the same.
func TestOpenFileCachedLeavesWhatIsNotOurs(t *testing.T) {
	ctx := context.Background()
	path := write(t, sampleFacts())
	d, err := OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	b, _ := os.ReadFile(path)
	sum := sha256Of(b)
	at := cachePath(path, sum)
	if err := os.Mkdir(at, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err = OpenFileCached(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if st, err := os.Stat(at); err != nil || !st.IsDir() {
		t.Errorf("the folder at %s was replaced: %v", at, err)
	}
	for _, n := range []string{".cudb.db.tmp", "cudb.db.x.CUDBCOL1.cache", "." + "cudb.db." + "abc" + cacheSuffix} {
		if IsKeptColumns(n) {
			t.Errorf("IsKeptColumns(%q)", n)
		}
	}
	if !IsKeptColumns(filepath.Base(at)) {
		t.Errorf("IsKeptColumns(%q) = false", filepath.Base(at))
	}
}

// TestOpenFileCachedReadsTheBuiltImage: in a data directory whose
// manifest names the file's sha256, the cudb.cols the build wrote is
// read and nothing is kept beside it; a manifest of other content, or a
// pending commit (cudb.cols may belong to the other set), is not trusted.
func TestOpenFileCachedReadsTheBuiltImage(t *testing.T) {
	ctx := context.Background()
	path := write(t, sampleFacts())
	dir := filepath.Dir(path)
	other := sampleFacts()
	other.GPUs = append(other.GPUs, GPU{Name: "Only In cudb.cols", ComputeCapability: "9.0", Provenance: Provenance{Source: "a"}})
	cols, err := EncodeColumns(ctx, write(t, other))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "cudb.cols"), cols, 0o644)
	b, _ := os.ReadFile(path)
	manifest := func(sum string) {
		os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"db_sha256": "`+sum+`"}`), 0o644)
	}
	open := func() []string {
		d, err := OpenFileCached(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		return gpuNames(t, d)
	}

	manifest(hex.EncodeToString(sha256Of(b)))
	if got := open(); len(got) != 2 || got[0] != "Only In cudb.cols" {
		t.Errorf("the built image was not read: GPUs %v", got)
	}
	if k := kept(t, dir); len(k) != 0 {
		t.Errorf("an image was kept beside a built one: %v", k)
	}

	journal := filepath.Join(dir, ".refresh-commit.json")
	os.WriteFile(journal, []byte(`{"files":["cudb.cols"]}`), 0o644)
	if got := open(); len(got) != 1 {
		t.Errorf("cudb.cols trusted while a commit is pending: GPUs %v", got)
	}
	os.Remove(journal)
	for _, k := range kept(t, dir) {
		os.Remove(filepath.Join(dir, k))
	}

	manifest(strings.Repeat("0", 64))
	if got := open(); len(got) != 1 {
		t.Errorf("cudb.cols of another content was read: GPUs %v", got)
	}
	if k := kept(t, dir); len(k) != 1 {
		t.Errorf("kept images: %v", k)
	}
}
