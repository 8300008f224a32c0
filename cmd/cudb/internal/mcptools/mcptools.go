// Package mcptools is cudb's Model Context Protocol server: the tools an
// AI coding agent calls (resolve, pin, verify_report, explain, check,
// matrix),
// each answering with exactly the JSON the CLI prints with --json
// (docs/json.md), because each tool runs the CLI command itself through a
// Runner. Schemas and examples: docs/mcp.md.
package mcptools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

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

// Runner runs one cudb command line (without the program name; --json is
// appended by the runner) with stdin as standard input, and returns what
// it printed on standard output. err is the command's error when it
// printed no answer (a usage error, nothing matched); an outcome the
// command reported in its JSON (a conflict, verify's findings) is not an
// error.
type Runner func(ctx context.Context, args []string, stdin string) ([]byte, error)

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

// flags renders the stack as --flag=value arguments (the = form, so a
// value that starts with a dash is never read as a flag).
func (s Stack) flags() []string {
	var out []string
	for _, f := range []struct{ name, value string }{
		{"cuda", s.CUDA}, {"python", s.Python}, {"platform", s.Platform}, {"variant", s.Variant},
		{"channel", s.Channel}, {"driver", s.Driver}, {"gpu", s.GPU}, {"sm", s.SM},
	} {
		if f.value != "" {
			out = append(out, "--"+f.name+"="+f.value)
		}
	}
	if s.Pre {
		out = append(out, "--pre")
	}
	return out
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

// NewServer returns the MCP server; version is cudb's version.
func NewServer(version string, run Runner) *mcp.Server {
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
			args := append([]string{"resolve"}, in.Stack.flags()...)
			if in.Limit > 0 {
				args = append(args, "--limit="+strconv.Itoa(in.Limit))
			}
			return answer(ctx, run, append(append(args, "--"), in.Requirements...), "")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pin", OutputSchema: OutputSchema("pin"), Title: "Pin the best stack",
		Description: "Resolve like resolve, take the best stack and render it as a file an installer reads (requirements, constraints, pip, uv, conda, apt, docker). " +
			"Same JSON as `cudb pin --json`: {format, content, stack, query, data, notes}."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in PinInput) (*mcp.CallToolResult, any, error) {
			if len(in.Requirements) == 0 {
				return nil, nil, errors.New("requirements: name at least one (torch==2.1)")
			}
			args := append([]string{"pin"}, in.Stack.flags()...)
			if in.Format != "" {
				args = append(args, "--format="+in.Format)
			}
			if in.Devel {
				args = append(args, "--devel")
			}
			if in.AllowUnknown {
				args = append(args, "--allow-unknown")
			}
			if in.Name != "" {
				args = append(args, "--name="+in.Name)
			}
			if in.ProjectVersion != "" {
				args = append(args, "--project-version="+in.ProjectVersion)
			}
			res, out, err := answer(ctx, run, append(append(args, "--"), in.Requirements...), "")
			if err != nil && strings.Contains(err.Error(), "--allow-unknown") {
				// The CLI's hint names its flag; here it is an argument.
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
			return answer(ctx, run, []string{"verify", "--from=-"}, in.Report)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "explain", OutputSchema: OutputSchema("explain"), Title: "Explain an error message",
		Description: "Name the cause of a CUDA, cuDNN, driver or framework error message and its fix. Same JSON as `cudb explain --json`."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, any, error) {
			if in.Message == "" {
				return nil, nil, errors.New("message: paste the error message")
			}
			return answer(ctx, run, []string{"explain", "-"}, in.Message)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "check", OutputSchema: OutputSchema("check"), Title: "Check a project file",
		Description: "Judge what a project file (Dockerfile, compose, requirements, pyproject.toml, uv.lock, poetry.lock, conda environment) will install, " +
			"against a target driver/GPU when given: findings with file line, category and the exact line to write. Same JSON as `cudb check - --json`."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, any, error) {
			if in.Content == "" {
				return nil, nil, errors.New("content: paste the text of a project file")
			}
			args := []string{"check"}
			for _, f := range []struct{ name, value string }{
				{"driver", in.Driver}, {"gpu", in.GPU}, {"sm", in.SM}, {"platform", in.Platform}, {"python", in.Python},
			} {
				if f.value != "" {
					args = append(args, "--"+f.name+"="+f.value)
				}
			}
			return answer(ctx, run, append(args, "--", "-"), in.Content)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "matrix", OutputSchema: OutputSchema("matrix"), Title: "A compatibility table",
		Description: "Print one compatibility table as JSON rows: a framework's releases × variants (torch, tensorflow, jax, onnxruntime) " +
			"or NVIDIA's tables (cuda, cudnn, driver, gpu, arch). Same JSON as `cudb matrix TABLE --json`."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in MatrixInput) (*mcp.CallToolResult, any, error) {
			if in.Table == "" {
				return nil, nil, errors.New("table: name a table (torch, cuda, gpu, ...)")
			}
			args := []string{"matrix", in.Table}
			if in.Channel != "" {
				args = append(args, "--channel="+in.Channel)
			}
			for _, f := range []struct{ name, value string }{{"cuda", in.CUDA}, {"arch", in.Arch}, {"name", in.Name}} {
				if f.value == "" {
					continue
				}
				if in.Table != "gpu" {
					return nil, nil, fmt.Errorf("%s filters the gpu table only, not %s (cudb matrix gpu --%s)", f.name, in.Table, f.name)
				}
				args = append(args, "--"+f.name+"="+f.value)
			}
			// MCP structured content is an object: the CLI's array of rows
			// goes under "rows", beside the table's name.
			res, out, err := answer(ctx, run, args, "")
			if err != nil {
				return res, out, err
			}
			return nil, struct {
				Table string          `json:"table"`
				Rows  json.RawMessage `json:"rows"`
			}{in.Table, out.(json.RawMessage)}, nil
		})
	return s
}

// answer runs the command and returns its JSON as the tool's structured
// result (and, by the SDK, as text content); a command that printed no
// JSON is a tool error carrying the command's message.
func answer(ctx context.Context, run Runner, args []string, stdin string) (*mcp.CallToolResult, any, error) {
	out, err := run(ctx, args, stdin)
	if len(out) > 0 && json.Valid(out) {
		return nil, json.RawMessage(out), nil
	}
	if err == nil {
		err = fmt.Errorf("cudb %s printed no JSON", args[0])
	}
	return nil, nil, err
}
