package query

import (
	"strings"

	"github.com/cudb/cudb/db"
)

// expectPins marks Linux CUDA wheels that ship their CUDA libraries as
// nvidia-* pip requirements but whose requirements are not in the data
// (see pinsMissing): pip would install pins cudb cannot show, so the
// stack is unknown.
func expectPins(stacks []Stack, release []*db.BuildRow) {
	for i := range stacks {
		s := &stacks[i]
		if len(s.pinReqs) == 0 && pinsMissing(s.platformBuild(), release) {
			s.gap(pinsGap)
		}
		if s.NCCL == "" && ncclKnownElsewhere(s, release) {
			// Named, but no gap: no command writes or checks an NCCL pin
			// of its own (a wheel's nvidia-nccl pin is one of its pins,
			// judged above); only a nccl== constraint needs it.
			s.Notes = append(s.Notes, "NCCL: the version this build ships or pins is not in the data")
		}
	}
}

// ncclKnownElsewhere reports a CUDA build whose NCCL is not in the data
// while other builds of its release have theirs: a fact the data lacks
// for this build, not one the framework does without.
func ncclKnownElsewhere(s *Stack, release []*db.BuildRow) bool {
	if !isCUDAVariant(s) || s.Representative().Channel != "" {
		return false
	}
	for _, o := range release {
		if _, ok := o.Req("nccl", db.KindPin, db.KindBundled, db.KindTested); ok && o.Version == s.version.String() {
			return true
		}
	}
	return false
}

const pinsGap = "the wheel's nvidia-* requirements (Requires-Dist pins) are not in the data"

// pinsMissing is the one rule, for every framework and release, that
// tells a wheel whose nvidia-* pins the data lacks: a Linux pip wheel
// built for CUDA with no nvidia-* pin in the data, that the data does not
// know to bundle its CUDA libraries (a bundled CUDA runtime), while the
// data says it takes them from pip: its own cuDNN or NCCL is a pip pin,
// or another Linux pip build of its release pins nvidia-* wheels. A
// bundled wheel needs no pins and misses none; a wheel the data knows
// nothing of either way (no pinned build in its release) is taken as the
// release's builds are, bundled.
func pinsMissing(b *db.BuildRow, release []*db.BuildRow) bool {
	if b.Platform != "linux" || b.Channel != "" || cudaMajorOf(b.CUDA, b.Variant) == "" || hasNvidiaPin(b) {
		return false
	}
	if _, bundled := b.Req("cuda", db.KindBundled); bundled {
		return false
	}
	if _, pinned := b.Req("cudnn", db.KindPin); pinned {
		return true
	}
	if _, pinned := b.Req("nccl", db.KindPin); pinned {
		return true
	}
	for _, o := range release {
		if o.Platform == "linux" && o.Channel == "" && o.Version == b.Version && hasNvidiaPin(o) {
			return true
		}
	}
	return false
}

func hasNvidiaPin(b *db.BuildRow) bool {
	for _, r := range b.Reqs {
		if r.Kind == db.KindPin && strings.HasPrefix(r.Needs, "nvidia-") {
			return true
		}
	}
	return false
}

// platformBuild is the build whose pins the asked platform needs: the
// Windows (or macOS) wheel for --platform windows, which carries its
// libraries; else the representative, Linux x86-64, whose pin list also
// stands for the Linux aarch64 wheels (they pin nvidia-* wheels too).
func (s *Stack) platformBuild() *db.BuildRow {
	if s.platform == "" || strings.HasPrefix(s.platform, "linux") {
		return s.Representative()
	}
	for _, b := range s.builds {
		if b.Platform == s.platform {
			return b
		}
	}
	return s.Representative()
}
