package site

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cudb/cudb/usecase"
)

// Two frameworks in one environment: for every pair of releases the page
// pairs (each framework's newest pairedReleases), every OS and package
// manager, `gen site` runs usecase.CombineStacks on the two releases' own
// answers, the walk behind `cudb resolve A==x B==y`'s combine step
// (resolve combines each framework's stacks as it answers it alone), for
// merge's verdict on every combination, the merged stack (with the file usecase.RenderStack
// writes for it) or the conflict lines resolve prints
// (usecase.ConflictLines). With a driver or GPU chosen the page drops the
// builds resolve drops before combining (the single-release judgements)
// and walks the combinations in the same order; nothing is judged in
// the browser. The answers are in data/install/pair/<A>-<x>+<B>-<y>.js.

// pairedReleases is how many of each framework's newest releases the
// page pairs: every pair of them costs a file (see docs/site.md for the
// sizes).
const pairedReleases = 12

// SelectorPair is one pair of releases' joint answer for one OS and
// package manager.
type SelectorPair struct {
	Request string `json:"request"` // the equivalent cudb resolve command
	Error   string `json:"error,omitempty"`
	// Combinations are merge's verdicts in the order resolve walks them:
	// the first framework's i-th stack with the second's k-th is
	// Combinations[i*len(second)+k]; the indices are into each release's
	// own answer for the same OS and package manager.
	Combinations []SelectorCombination `json:"combinations,omitempty"`
}

// SelectorCombination is one stack per framework, merged or in conflict.
type SelectorCombination struct {
	Stack     *SelectorJoint `json:"stack,omitempty"`
	Conflicts []string       `json:"conflicts,omitempty"` // usecase.ConflictLines
}

// SelectorJoint is a merged stack, compacted.
type SelectorJoint struct {
	Variant string        `json:"variant"`
	CUDA    string        `json:"cuda"`
	CUDNN   string        `json:"cudnn"`
	NCCL    string        `json:"nccl,omitempty"`
	Python  usecase.Range `json:"python"`
	Command string        `json:"command"`
	Status  string        `json:"status"`
	Unknown []string      `json:"unknown"`
	Notes   []string      `json:"notes,omitempty"`
	PinFile string        `json:"pin,omitempty"`
	PinErr  string        `json:"pin_error,omitempty"`
}

// PairKey names a pair's answer in a pair file.
func PairKey(a, va, b, vb, os, manager string) string {
	return a + " " + va + " " + b + " " + vb + " " + os + " " + manager
}

// PairFile is the file, under data/, holding one pair of releases' answers.
func PairFile(a, va, b, vb string) string {
	return "install/pair/" + a + "-" + va + "+" + b + "-" + vb + ".js"
}

// writePairs writes every paired release pair's answers.
func writePairs(ctx context.Context, d *usecase.DB, w *writer, sel *Selector) error {
	b := &selectorBuilder{d: d, sel: sel}
	fws := sel.Frameworks
	for i := range fws {
		for k := i + 1; k < len(fws); k++ {
			for _, va := range fws[i].Versions[:fws[i].Paired] {
				for _, vb := range fws[k].Versions[:fws[k].Paired] {
					m := map[string]*SelectorPair{}
					for _, os := range selectorOS {
						for _, pm := range selectorManagers {
							ka, kb := AnswerKey(fws[i].Name, va, os, pm.name), AnswerKey(fws[k].Name, vb, os, pm.name)
							if b.sel.Answers[ka] == nil || b.sel.Answers[kb] == nil {
								continue
							}
							p, err := b.pair(ctx, fws[i].Name, va, fws[k].Name, vb, os, pm.name, pm.channel, pm.format)
							if err != nil {
								return err
							}
							m[PairKey(fws[i].Name, va, fws[k].Name, vb, os, pm.name)] = p
						}
					}
					js, err := json.Marshal(m)
					if err != nil {
						return err
					}
					w.write("data/"+PairFile(fws[i].Name, va, fws[k].Name, vb), append(append([]byte("cudbInstallPair("), js...), []byte(");\n")...))
				}
			}
		}
	}
	return nil
}

func (b *selectorBuilder) pair(ctx context.Context, fa, va, fb, vb, os, manager, ch, format string) (*SelectorPair, error) {
	req := usecase.ResolveRequest{Requirements: []string{fa + "==" + va, fb + "==" + vb}, Platform: os, Channel: ch}
	p := &SelectorPair{Request: fmt.Sprintf("cudb resolve %s==%s %s==%s --platform %s --channel %s", fa, va, fb, vb, os, ch)}
	// Resolve answers a pair from each framework's stacks alone (no
	// driver or GPU filters them before combining): the releases' own
	// answers, or the first one's error, as Resolve stops at it.
	ka, kb := AnswerKey(fa, va, os, manager), AnswerKey(fb, vb, os, manager)
	for _, k := range []string{ka, kb} {
		if e := b.sel.Answers[k].Error; e != "" {
			p.Error = e
			return p, nil
		}
	}
	// A pair resolve refuses is an answer too: the page shows its words.
	j, err := usecase.CombineStacks([][]usecase.Stack{b.sel.stacks[ka], b.sel.stacks[kb]}, os)
	if p.Error = errText(err); p.Error != "" {
		return p, nil
	}
	preq := req
	preq.Driver, preq.GPU = pinDriverMark, pinGPUMark
	if format != "conda" {
		preq.Channel = ""
	}
	for _, c := range j.Combinations {
		if c.Stack == nil {
			p.Combinations = append(p.Combinations, SelectorCombination{Conflicts: usecase.ConflictLines(c.Conflicts, false)})
			continue
		}
		s := c.Stack
		js := &SelectorJoint{Variant: s.Variant, CUDA: s.CUDA, CUDNN: s.CUDNN, NCCL: s.NCCL, Python: s.Python, Command: s.Install.Command,
			Status: s.Status, Unknown: s.Unknown, Notes: s.Notes}
		if s.Status == usecase.StatusUnknown {
			// pin refuses it; the page words the refusal from its gaps.
		} else if content, err := usecase.RenderStack(ctx, b.d, preq, format, usecase.PinRenderOptions{}, s); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			js.PinErr = err.Error()
		} else {
			js.PinFile = content
		}
		p.Combinations = append(p.Combinations, SelectorCombination{Stack: js})
	}
	return p, nil
}

// errText is an error's words, or "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
