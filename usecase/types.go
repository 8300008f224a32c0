package usecase

import (
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/query"
	"github.com/cudb/cudb/query/check"
	"github.com/cudb/cudb/query/findings"
	"github.com/cudb/cudb/query/nvidia"
	"github.com/cudb/cudb/query/pin"
	"github.com/cudb/cudb/query/verify"
)

// DB is an open database (embedded or --db FILE).
type DB = db.DB

// The result types the front doors spell.
type (
	// ResolveRequest is a resolve's requirements and host constraints.
	ResolveRequest = query.ResolveRequest
	// Resolution is Resolve's answer.
	Resolution = query.Resolution
	// Stack is one resolved stack.
	Stack = query.Stack
	// Citation ties a stack's fact to its source row.
	Citation = query.Citation
	// ComponentAnswer is a resolve of a native component (cuda==12.4).
	ComponentAnswer = query.ComponentAnswer
	// Incompatibility is a conflict between frameworks.
	Incompatibility = query.Incompatibility
	// DataInfo describes the open database.
	DataInfo = query.DataInfo

	// CUDARow, CUDNNRow, CUDNNRelease, GPURow, ArchRow and DriverRow are
	// the NVIDIA tables' rows.
	CUDARow      = nvidia.CUDARow
	CUDNNRow     = nvidia.CUDNNRow
	CUDNNRelease = nvidia.CUDNNRelease
	GPURow       = nvidia.GPURow
	ArchRow      = nvidia.ArchRow
	DriverRow    = nvidia.DriverRow
	// GPUFilter narrows the gpu table.
	GPUFilter = nvidia.GPUFilter

	// PinResult is Pin's answer.
	PinResult = pin.PinResult

	// Finding is one verify or explain finding.
	Finding = findings.Finding
	// Summary counts a report's findings.
	Summary = findings.Summary
	// Report is one verify report (facts read, findings).
	Report = verify.Result
	// ReadFacts is what a verify report read.
	ReadFacts = verify.Read
	// ExplainResult is Explain's answer.
	ExplainResult = verify.ExplainResult

	// CheckReport is Check's answer.
	CheckReport = check.Report
	// CheckTarget is the host a check judges against.
	CheckTarget = check.Target
	// CheckInput is one project file.
	CheckInput = check.Input
)

// Severities and Categories are the findings model's severities (most
// severe first) and host finding categories, in their documented order
// (query/findings; check adds its own categories, check.Categories).
var (
	Severities = findings.Severities
	Categories = findings.Categories
)

// The severities of a finding.
const (
	SevError   = findings.SevError
	SevWarning = findings.SevWarning
	SevInfo    = findings.SevInfo
)

// Verdict is a summary's one-line verdict ("" when none).
func Verdict(s Summary) string { return findings.Verdict(s) }
