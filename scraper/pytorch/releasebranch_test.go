package pytorch

import (
	"testing"

	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/scraper"
)

// A builder row read at a release branch makes the wheel build the
// getting-started page never listed; a row read at builder main does not.
func TestReleaseBranchRowsMakeBuilds(t *testing.T) {
	rel := scraper.Record{Table: "release_matrix", Key: "1.11.0", Ref: "torch_release_matrix.csv:22", Fields: map[string]string{
		"torch_version": "1.11.0", "linux_wheel_cuda_variants": "cu102;cu113", "pypi_default_linux_variant": "cu102",
		"python_min": "3.7", "python_max": "3.10"}}
	arch := func(variant, commit string) scraper.Record {
		return scraper.Record{Table: "arch_list", Key: "1.11|" + variant, Ref: "torch_cuda_arch_list.csv", Fields: map[string]string{
			"torch_version": "1.11", "cuda_variant": variant, "platform": "linux-x86_64 wheel",
			"sm_list": "sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86", "source_commit": commit}}
	}
	tool := scraper.Record{Table: "toolchain", Key: "1.11|cu115|win", Ref: "torch_cuda_build_toolchain.csv", Fields: map[string]string{
		"torch_version": "1.11", "cuda_variant": "cu115", "platform": "windows build", "cuda_toolkit_full": "11.5.0",
		"cudnn": "8.3.2.44", "source_commit": "e77e5d07 (release/1.11)"}}
	f, err := BuildMatrix{}.Normalize([]scraper.Record{rel, arch("cu115", "e77e5d07 (release/1.11)"), arch("cu116", "ec927cc3"), tool})
	if err != nil {
		t.Fatal(err)
	}
	got := map[db.BuildKey]db.Build{}
	for _, b := range f.Builds {
		got[b.Key()] = b
	}
	lin, ok := got[db.BuildKey{Component: "torch", Version: "1.11.0", Variant: "cu115", Platform: "linux"}]
	if !ok || lin.CUDA != "11.5" || lin.PythonMin != "3.7" || lin.PythonMax != "3.10" || lin.ArchList == "" {
		t.Errorf("linux cu115 build = %+v (found %v)", lin, ok)
	}
	if _, ok := got[db.BuildKey{Component: "torch", Version: "1.11.0", Variant: "cu115", Platform: "windows"}]; !ok {
		t.Error("the release-branch Windows build row made no build")
	}
	if _, ok := got[db.BuildKey{Component: "torch", Version: "1.11.0", Variant: "cu116", Platform: "linux"}]; ok {
		t.Error("a row read at builder main (not a release branch) made a build")
	}
}
