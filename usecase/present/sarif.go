package present

import (
	"io"
	"strings"

	"github.com/cudb/cudb/query/check"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/usecase"
)

// SARIF writes a check as a SARIF 2.1.0 log (code scanning); toolVersion
// is cudb's version.
func SARIF(w io.Writer, rep *usecase.CheckReport, toolVersion string) error {
	return JSON(w, toSARIF(rep, toolVersion))
}

// SARIFSchema is the schema SARIF output follows.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SARIFLog is a SARIF 2.1.0 log (only the parts cudb writes).
type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// ruleText describes each category for code-scanning views.
var ruleText = map[string]string{
	findings.CatDriverTooOld:      "The target driver is too old for the CUDA the image or the build needs",
	findings.CatCUDNNMismatch:     "The cuDNN a framework meets first is not the one it was built for",
	findings.CatCUDNNMissing:      "A framework loads cuDNN from the system and the image has none",
	findings.CatToolkitMismatch:   "A CUDA toolkit of another version than the image or the framework",
	findings.CatArchUnsupported:   "The build carries no kernels for the target GPU's architecture",
	findings.CatCPUOnlyWheel:      "A CPU-only build where a GPU is meant",
	findings.CatMultipleCUDALibs:  "Libraries of two CUDA versions on one load path",
	findings.CatPythonUnsupported: "No build for the environment's Python",
	findings.CatNoGPUVisible:      "The container is given no NVIDIA GPU",
	findings.CatUnknownVersion:    "A version cudb cannot tell or does not know; its checks are skipped",
	findings.CatProbeIncomplete:   "The host probe could not finish",
	check.CatNoMatchingBuild:      "A pin that matches no known build",
	check.CatCompanionMismatch:    "Companion packages not released with the framework version",
	check.CatFrameworkConflict:    "Frameworks that cannot share one environment",
	check.CatPinConflict:          "A pin outside what a framework's wheel requires",
	check.CatDriverInImage:        "A driver package installed inside an image",
	check.CatNotJudged:            "Something the file refers to that check could not follow",
}

// toSARIF is the check as a SARIF 2.1.0 log. Each finding's fix is
// part of its message (SARIF fixes need byte regions cudb does not keep).
func toSARIF(r *usecase.CheckReport, toolVersion string) *SARIFLog {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "cudb", Version: toolVersion,
		InformationURI: "https://github.com/cudb/cudb/blob/main/docs/check.md", Rules: []sarifRule{}}}, Results: []sarifResult{}}
	index := map[string]int{}
	for _, cat := range check.Categories {
		index[cat] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: cat, ShortDescription: sarifMessage{Text: ruleText[cat]}})
	}
	for _, f := range r.Findings {
		msg, line := annotation(f)
		run.Results = append(run.Results, sarifResult{RuleID: f.Category, RuleIndex: index[f.Category], Level: sarifLevel(f.Severity),
			Message:   sarifMessage{Text: msg},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri(f.File)}, Region: sarifRegion{StartLine: line}}}}})
	}
	return &SARIFLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}
}

func uri(file string) string {
	return strings.TrimPrefix(strings.ReplaceAll(file, "\\", "/"), "./")
}

func sarifLevel(sev string) string {
	switch sev {
	case findings.SevError:
		return "error"
	case findings.SevWarning:
		return "warning"
	}
	return "note"
}
