// Package mcptools is cudb's Model Context Protocol server: the tools an
// AI coding agent calls (resolve, pin, verify_report, explain, check,
// matrix),
// each answering with exactly the JSON the CLI prints with --json
// (docs/json.md), because each tool calls the same use case (package
// usecase) as the command. Schemas and examples: docs/mcp.md.
package mcptools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/usecase"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outputSchemas holds each tool's outputSchema: the shape of the JSON the
// command prints (docs/json.md), its required keys and their types. The
// SDK validates every result against it before sending it, and MCP
// clients (the TypeScript SDK's among them) validate it again.
//
//go:embed outputschemas.json
var outputSchemas []byte

// OutputSchema returns the output schema of the named tool.
func OutputSchema(tool string) *jsonschema.Schema {
	var all map[string]*jsonschema.Schema
	if err := json.Unmarshal(outputSchemas, &all); err != nil {
		panic("mcptools: outputschemas.json: " + err.Error())
	}
	s := all[tool]
	if s == nil {
		panic("mcptools: no output schema for " + tool)
	}
	return s
}

// Open returns the database the tools answer from (opened once by the
// caller, so a bad --db fails before the first request).
type Open func(ctx context.Context) (*usecase.DB, error)

// Stack narrows a resolve or pin: the flags resolve and pin share.
type Stack struct {
	CUDA     string `json:"cuda,omitempty" jsonschema:"CUDA version or specifier (12.1 = any 12.1.x)"`
	Python   string `json:"python,omitempty" jsonschema:"Python version the stack must support (3.11)"`
	Platform string `json:"platform,omitempty" jsonschema:"linux, windows, macos or linux-aarch64"`
	Variant  string `json:"variant,omitempty" jsonschema:"build variant (cu121, cpu, rocm6.0); default: CUDA builds"`
	Channel  string `json:"channel,omitempty" jsonschema:"pip (default) or conda"`
	Driver   string `json:"driver,omitempty" jsonschema:"NVIDIA driver version the stack must run on (535.104.05)"`
	GPU      string `json:"gpu,omitempty" jsonschema:"GPU the stack must carry kernels for (Tesla T4, RTX 4090)"`
	SM       string `json:"sm,omitempty" jsonschema:"compute capability the stack must carry kernels for (7.5)"`
	Pre      bool   `json:"pre,omitempty" jsonschema:"include pre-releases"`
}

// request is the stack as a resolve request for requirements.
func (s Stack) request(requirements []string) usecase.ResolveRequest {
	return usecase.ResolveRequest{Requirements: requirements, CUDA: s.CUDA, Python: s.Python, Platform: s.Platform, Variant: s.Variant,
		Channel: s.Channel, Driver: s.Driver, GPU: s.GPU, SM: s.SM, Pre: s.Pre}
}

// ResolveInput is the resolve tool's input.
type ResolveInput struct {
	Requirements []string `json:"requirements" jsonschema:"pip-style requirements (PEP 440): torch==2.1, tensorflow>=2.15, cuda==12.1"`
	Stack
	Limit int `json:"limit,omitempty" jsonschema:"at most this many stacks (0 = all)"`
}

// PinInput is the pin tool's input.
type PinInput struct {
	Requirements []string `json:"requirements" jsonschema:"pip-style requirements (PEP 440): torch==2.1"`
	Format       string   `json:"format,omitempty" jsonschema:"requirements (default), constraints, pip, uv, conda, apt or docker"`
	Devel        bool     `json:"devel,omitempty" jsonschema:"docker: the devel image flavour"`
	// AllowUnknown is --allow-unknown: write a stack cudb cannot vouch
	// for, each gap named in the file's header, instead of refusing it.
	AllowUnknown   bool   `json:"allow_unknown,omitempty" jsonschema:"write a stack cudb cannot vouch for (a fact it needs is not in the data), each gap named in the file's header; without it such a stack is refused"`
	Name           string `json:"name,omitempty" jsonschema:"uv: the project's name; conda: the environment's name (default: framework-version-variant)"`
	ProjectVersion string `json:"project_version,omitempty" jsonschema:"uv: the project's version (default 0.1.0)"`
	Stack
}

// VerifyReportInput is the verify_report tool's input.
type VerifyReportInput struct {
	Report string `json:"report" jsonschema:"the text of a pasted report: collect_env output, nvidia-smi, pip list, conda list, pip freeze, cudb probe --json"`
}

// ExplainInput is the explain tool's input.
type ExplainInput struct {
	Message string `json:"message" jsonschema:"a CUDA, cuDNN, driver or framework error message (a line or a traceback)"`
}

// MatrixInput is the matrix tool's input.
type MatrixInput struct {
	Table   string `json:"table" jsonschema:"the table: torch, tensorflow, jax, onnxruntime, cuda, cudnn, driver, gpu, arch"`
	Channel string `json:"channel,omitempty" jsonschema:"torch only: pip or conda (default both)"`
	// The gpu table's filters (cudb matrix gpu --cuda/--arch/--name).
	CUDA string `json:"cuda,omitempty" jsonschema:"gpu only: judge each GPU against this CUDA toolkit (13 or 12.8): supported, dropped or unsupported"`
	Arch string `json:"arch,omitempty" jsonschema:"gpu only: only this architecture (Ampere, Hopper, ...)"`
	Name string `json:"name,omitempty" jsonschema:"gpu only: only models whose name or alias contains this text"`
}

// CheckInput is the check tool's input.
type CheckInput struct {
	Content  string `json:"content" jsonschema:"the text of one project file: a Dockerfile, compose file, requirements.txt, pip freeze output, pyproject.toml, uv.lock, poetry.lock or conda environment file (the kind is detected from the content)"`
	Driver   string `json:"driver,omitempty" jsonschema:"the target host's NVIDIA driver version (535.104.05)"`
	GPU      string `json:"gpu,omitempty" jsonschema:"the target GPU by name (RTX 4090, Tesla T4)"`
	SM       string `json:"sm,omitempty" jsonschema:"the target GPU's compute capability (8.9)"`
	Platform string `json:"platform,omitempty" jsonschema:"the target platform: linux (default), linux-aarch64, windows, macos"`
	Python   string `json:"python,omitempty" jsonschema:"the Python version packages are installed for (default: the image's)"`
}

// Tools lists the tool names, in the order they are registered.
var Tools = []string{"resolve", "pin", "verify_report", "explain", "check", "matrix"}

// NewServer returns the MCP server; version is cudb's version. Each tool
// calls its use case (package usecase) directly, as the CLI does, so its
// structured result is the JSON `cudb COMMAND --json` prints.
func NewServer(version string, open Open) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cudb", Title: "cudb: NVIDIA driver / CUDA / cuDNN / framework compatibility", Version: version},
		&mcp.ServerOptions{Instructions: "cudb answers from an offline database in which every fact cites its source. " +
			"Unknown is an answer: a field the data lacks is missing, never guessed. Results are the JSON of the cudb CLI (docs/json.md)."})
	mcp.AddTool(s, &mcp.Tool{Name: "resolve", OutputSchema: OutputSchema("resolve"), Title: "Resolve requirements to stacks",
		Description: "Find the stacks (framework build, CUDA, cuDNN, NCCL, Python, driver floor) that satisfy pip-style requirements, best first; " +
			"several frameworks must share one environment, else the result lists the conflicts. Same JSON as `cudb resolve --json`."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ResolveInput) (*mcp.CallToolResult, any, error) {
			if len(in.Requirements) == 0 {
				return nil, nil, errors.New("requirements: name at least one (torch==2.1)")
			}
			return answer(ctx, open, func(d *usecase.DB) (any, error) {
				return usecase.Resolve(ctx, d, usecase.ResolveOptions{ResolveRequest: in.Stack.request(in.Requirements), Limit: in.Limit})
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pin", OutputSchema: OutputSchema("pin"), Title: "Pin the best stack",
		Description: "Resolve like resolve, take the best stack and render it as a file an installer reads (requirements, constraints, pip, uv, conda, apt, docker). " +
			"Same JSON as `cudb pin --json`: {format, content, stack, query, data, notes}."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in PinInput) (*mcp.CallToolResult, any, error) {
			if len(in.Requirements) == 0 {
				return nil, nil, errors.New("requirements: name at least one (torch==2.1)")
			}
			res, out, err := answer(ctx, open, func(d *usecase.DB) (any, error) {
				r, err := usecase.Pin(ctx, d, usecase.PinOptions{ResolveRequest: in.Stack.request(in.Requirements), Format: in.Format, Devel: in.Devel,
					AllowUnknown: in.AllowUnknown, ProjectName: in.Name, ProjectVersion: in.ProjectVersion, CudbVersion: version})
				if err != nil && r != nil {
					return r, nil // the conflicts are the answer
				}
				return r, err
			})
			if usecase.UnknownRefusal(err) {
				// The hint names the CLI's flag; here it is an argument.
				err = fmt.Errorf("%w\n(in this tool: \"allow_unknown\": true)", err)
			}
			return res, out, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "verify_report", OutputSchema: OutputSchema("verify_report"), Title: "Judge a pasted report",
		Description: "Judge the host a pasted report describes (collect_env, nvidia-smi, pip list, conda list, cudb probe --json): " +
			"every mismatch between driver, GPU, CUDA, cuDNN and framework builds, with its fix. Same JSON as `cudb verify --from FILE --json`."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in VerifyReportInput) (*mcp.CallToolResult, any, error) {
			if in.Report == "" {
				return nil, nil, errors.New("report: paste the text of a report")
			}
			return answer(ctx, open, func(d *usecase.DB) (any, error) {
				return usecase.Verify(ctx, d, usecase.VerifyOptions{Reports: []usecase.ReportText{{Name: stdinName, Text: []byte(in.Report)}}})
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "explain", OutputSchema: OutputSchema("explain"), Title: "Explain an error message",
		Description: "Name the cause of a CUDA, cuDNN, driver or framework error message and its fix. Same JSON as `cudb explain --json`."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, any, error) {
			if in.Message == "" {
				return nil, nil, errors.New("message: paste the error message")
			}
			return answer(ctx, open, func(d *usecase.DB) (any, error) {
				return usecase.Explain(ctx, d, usecase.ExplainOptions{Text: in.Message})
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "check", OutputSchema: OutputSchema("check"), Title: "Check a project file",
		Description: "Judge what a project file (Dockerfile, compose, requirements, pyproject.toml, uv.lock, poetry.lock, conda environment) will install, " +
			"against a target driver/GPU when given: findings with file line, category and the exact line to write. Same JSON as `cudb check - --json`."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, any, error) {
			if in.Content == "" {
				return nil, nil, errors.New("content: paste the text of a project file")
			}
			return answer(ctx, open, func(d *usecase.DB) (any, error) {
				// Files the content refers to are not followed: the server
				// reads nothing of the machine it runs on.
				return usecase.Check(ctx, d, usecase.CheckOptions{Files: []usecase.CheckInput{{Name: "-", Data: []byte(in.Content)}},
					Target: usecase.CheckTarget{Driver: in.Driver, GPU: in.GPU, SM: in.SM, Platform: in.Platform, Python: in.Python, From: "flags"}})
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "matrix", OutputSchema: OutputSchema("matrix"), Title: "A compatibility table",
		Description: "Print one compatibility table as JSON rows: a framework's releases × variants (torch, tensorflow, jax, onnxruntime) " +
			"or NVIDIA's tables (cuda, cudnn, driver, gpu, arch). Same JSON as `cudb matrix TABLE --json`, under \"rows\"."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in MatrixInput) (*mcp.CallToolResult, any, error) {
			if in.Table == "" {
				return nil, nil, errors.New("table: name a table (torch, cuda, gpu, ...)")
			}
			// MCP structured content is an object: the rows go under
			// "rows", beside the table's name.
			return answer(ctx, open, func(d *usecase.DB) (any, error) {
				return usecase.Matrix(ctx, d, usecase.MatrixOptions{Table: in.Table, Channel: in.Channel,
					GPU: usecase.GPUFilter{CUDA: in.CUDA, Arch: in.Arch, Name: in.Name}})
			})
		})
	return s
}

// stdinName is how a pasted text is named, as the CLI names standard
// input.
const stdinName = "<stdin>"

// answer runs a use case on the database and returns its result as the
// tool's structured result (and, by the SDK, as text content). A coded
// error is a tool error carrying its message and hint.
func answer(ctx context.Context, open Open, run func(d *usecase.DB) (any, error)) (*mcp.CallToolResult, any, error) {
	d, err := open(ctx)
	if err != nil {
		return nil, nil, toolError(err)
	}
	out, err := run(d)
	if err != nil {
		return nil, nil, toolError(err)
	}
	// The SDK validates the result against the tool's output schema as
	// JSON: give it the JSON the CLI prints.
	b, err := json.Marshal(out)
	if err != nil {
		return nil, nil, err
	}
	return nil, json.RawMessage(b), nil
}

// toolError is err's message followed by its hint, as the CLI prints
// them.
func toolError(err error) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Hint != "" {
		return &hinted{err: err, text: err.Error() + "\nTry: " + e.Hint}
	}
	return err
}

type hinted struct {
	err  error
	text string
}

func (h *hinted) Error() string { return h.text }
func (h *hinted) Unwrap() error { return h.err }
