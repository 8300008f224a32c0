package query

import (
	"github.com/cudb/cudb/db"
	"github.com/cudb/cudb/internal/version"
)

// Framework is the canonical name of the framework the stack installs.
func (s *Stack) Framework() string { return s.framework }

// Version is the framework's parsed release version.
func (s *Stack) Version() version.Version { return s.version }

// Builds are the wheel builds (one per platform) the stack groups.
func (s *Stack) Builds() []*db.BuildRow { return s.builds }

// PinReqs are the wheel's own Requires-Dist pins, where the data holds them.
func (s *Stack) PinReqs() []db.Requirement { return s.pinReqs }

// CUDNNKind says how the stack's cuDNN is known (bundled, tested, …).
func (s *Stack) CUDNNKind() string { return s.cudnnKind }
